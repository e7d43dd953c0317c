package armdemo

// createOrUpdateCreateRequest creates the CreateOrUpdate request.
func (client *WidgetsClient) createOrUpdateCreateRequest() {
	urlPath := "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Demo/widgets/{widgetName}"
	reqQP.Set("api-version", "2024-01-01")
}

// listCreateRequest lists widgets: a collection, not one resource.
func (client *WidgetsClient) listCreateRequest() {
	urlPath := "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Demo/widgets"
	reqQP.Set("api-version", "2024-01-01")
}

// getCreateRequest of a child with a fixed name segment.
func (client *WidgetsClient) getPartCreateRequest() {
	urlPath := "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Demo/widgets/{widgetName}/settings/default/parts/{partName}"
	reqQP.Set("api-version", "2023-12-01-preview")
}
