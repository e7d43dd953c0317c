package armdemo

func (client *WidgetsClient) createOrUpdateCreateRequest() {
	urlPath := "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Demo/widgets/{widgetName}"
	reqQP.Set("api-version", "2022-05-01")
}
