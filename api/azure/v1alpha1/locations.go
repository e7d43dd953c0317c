package v1alpha1

import "strings"

// Location is an Azure location: its ARM name (westeurope) or its display
// name (West Europe), which ARM treats as the same; the API server refuses
// any other value. The operator compares and bounds locations by
// NormalizeLocation. The rule lists the names and lower-case display names
// of Locations (a test keeps them equal).
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:XValidation:rule="self.lowerAscii() in ['eastus', 'east us', 'eastus2', 'east us 2', 'southcentralus', 'south central us', 'westus2', 'west us 2', 'westus3', 'west us 3', 'australiaeast', 'australia east', 'southeastasia', 'southeast asia', 'northeurope', 'north europe', 'swedencentral', 'sweden central', 'uksouth', 'uk south', 'westeurope', 'west europe', 'centralus', 'central us', 'southafricanorth', 'south africa north', 'centralindia', 'central india', 'eastasia', 'east asia', 'indonesiacentral', 'indonesia central', 'japaneast', 'japan east', 'japanwest', 'japan west', 'koreacentral', 'korea central', 'malaysiawest', 'malaysia west', 'newzealandnorth', 'new zealand north', 'canadacentral', 'canada central', 'austriaeast', 'austria east', 'belgiumcentral', 'belgium central', 'denmarkeast', 'denmark east', 'francecentral', 'france central', 'germanywestcentral', 'germany west central', 'italynorth', 'italy north', 'norwayeast', 'norway east', 'polandcentral', 'poland central', 'spaincentral', 'spain central', 'switzerlandnorth', 'switzerland north', 'mexicocentral', 'mexico central', 'uaenorth', 'uae north', 'brazilsouth', 'brazil south', 'chilecentral', 'chile central', 'israelcentral', 'israel central', 'qatarcentral', 'qatar central', 'northcentralus', 'north central us', 'westus', 'west us', 'westcentralus', 'west central us', 'centraluseuap', 'central us euap', 'eastus2euap', 'east us 2 euap', 'southafricawest', 'south africa west', 'australiacentral', 'australia central', 'australiacentral2', 'australia central 2', 'australiasoutheast', 'australia southeast', 'jioindiacentral', 'jio india central', 'jioindiawest', 'jio india west', 'koreasouth', 'korea south', 'southindia', 'south india', 'westindia', 'west india', 'canadaeast', 'canada east', 'francesouth', 'france south', 'germanynorth', 'germany north', 'norwaywest', 'norway west', 'switzerlandwest', 'switzerland west', 'ukwest', 'uk west', 'uaecentral', 'uae central', 'brazilsoutheast', 'brazil southeast', 'usgovvirginia', 'usgov virginia', 'usgovarizona', 'usgov arizona', 'usgovtexas', 'usgov texas', 'usdodcentral', 'usdod central', 'usdodeast', 'usdod east', 'chinaeast', 'china east', 'chinaeast2', 'china east 2', 'chinaeast3', 'china east 3', 'chinanorth', 'china north', 'chinanorth2', 'china north 2', 'chinanorth3', 'china north 3', 'global']",messageExpression="'location ' + self + ' is not an Azure location: use its name, such as westeurope, or its display name, such as West Europe'"
type Location string

// LocationInfo is one Azure location as `az account list-locations` shows it.
type LocationInfo struct {
	Name, DisplayName string
}

// Locations are the locations of Azure's public, US Government and China
// clouds, as `az account list-locations` lists them, and "global" for
// resources outside any region. It is the one list: the CRDs' validation
// rule above and the emulator's locations use it.
var Locations = []LocationInfo{
	{Name: "eastus", DisplayName: "East US"},
	{Name: "eastus2", DisplayName: "East US 2"},
	{Name: "southcentralus", DisplayName: "South Central US"},
	{Name: "westus2", DisplayName: "West US 2"},
	{Name: "westus3", DisplayName: "West US 3"},
	{Name: "australiaeast", DisplayName: "Australia East"},
	{Name: "southeastasia", DisplayName: "Southeast Asia"},
	{Name: "northeurope", DisplayName: "North Europe"},
	{Name: "swedencentral", DisplayName: "Sweden Central"},
	{Name: "uksouth", DisplayName: "UK South"},
	{Name: "westeurope", DisplayName: "West Europe"},
	{Name: "centralus", DisplayName: "Central US"},
	{Name: "southafricanorth", DisplayName: "South Africa North"},
	{Name: "centralindia", DisplayName: "Central India"},
	{Name: "eastasia", DisplayName: "East Asia"},
	{Name: "indonesiacentral", DisplayName: "Indonesia Central"},
	{Name: "japaneast", DisplayName: "Japan East"},
	{Name: "japanwest", DisplayName: "Japan West"},
	{Name: "koreacentral", DisplayName: "Korea Central"},
	{Name: "malaysiawest", DisplayName: "Malaysia West"},
	{Name: "newzealandnorth", DisplayName: "New Zealand North"},
	{Name: "canadacentral", DisplayName: "Canada Central"},
	{Name: "austriaeast", DisplayName: "Austria East"},
	{Name: "belgiumcentral", DisplayName: "Belgium Central"},
	{Name: "denmarkeast", DisplayName: "Denmark East"},
	{Name: "francecentral", DisplayName: "France Central"},
	{Name: "germanywestcentral", DisplayName: "Germany West Central"},
	{Name: "italynorth", DisplayName: "Italy North"},
	{Name: "norwayeast", DisplayName: "Norway East"},
	{Name: "polandcentral", DisplayName: "Poland Central"},
	{Name: "spaincentral", DisplayName: "Spain Central"},
	{Name: "switzerlandnorth", DisplayName: "Switzerland North"},
	{Name: "mexicocentral", DisplayName: "Mexico Central"},
	{Name: "uaenorth", DisplayName: "UAE North"},
	{Name: "brazilsouth", DisplayName: "Brazil South"},
	{Name: "chilecentral", DisplayName: "Chile Central"},
	{Name: "israelcentral", DisplayName: "Israel Central"},
	{Name: "qatarcentral", DisplayName: "Qatar Central"},
	{Name: "northcentralus", DisplayName: "North Central US"},
	{Name: "westus", DisplayName: "West US"},
	{Name: "westcentralus", DisplayName: "West Central US"},
	{Name: "centraluseuap", DisplayName: "Central US EUAP"},
	{Name: "eastus2euap", DisplayName: "East US 2 EUAP"},
	{Name: "southafricawest", DisplayName: "South Africa West"},
	{Name: "australiacentral", DisplayName: "Australia Central"},
	{Name: "australiacentral2", DisplayName: "Australia Central 2"},
	{Name: "australiasoutheast", DisplayName: "Australia Southeast"},
	{Name: "jioindiacentral", DisplayName: "Jio India Central"},
	{Name: "jioindiawest", DisplayName: "Jio India West"},
	{Name: "koreasouth", DisplayName: "Korea South"},
	{Name: "southindia", DisplayName: "South India"},
	{Name: "westindia", DisplayName: "West India"},
	{Name: "canadaeast", DisplayName: "Canada East"},
	{Name: "francesouth", DisplayName: "France South"},
	{Name: "germanynorth", DisplayName: "Germany North"},
	{Name: "norwaywest", DisplayName: "Norway West"},
	{Name: "switzerlandwest", DisplayName: "Switzerland West"},
	{Name: "ukwest", DisplayName: "UK West"},
	{Name: "uaecentral", DisplayName: "UAE Central"},
	{Name: "brazilsoutheast", DisplayName: "Brazil Southeast"},
	{Name: "usgovvirginia", DisplayName: "USGov Virginia"},
	{Name: "usgovarizona", DisplayName: "USGov Arizona"},
	{Name: "usgovtexas", DisplayName: "USGov Texas"},
	{Name: "usdodcentral", DisplayName: "USDoD Central"},
	{Name: "usdodeast", DisplayName: "USDoD East"},
	{Name: "chinaeast", DisplayName: "China East"},
	{Name: "chinaeast2", DisplayName: "China East 2"},
	{Name: "chinaeast3", DisplayName: "China East 3"},
	{Name: "chinanorth", DisplayName: "China North"},
	{Name: "chinanorth2", DisplayName: "China North 2"},
	{Name: "chinanorth3", DisplayName: "China North 3"},
	{Name: "global", DisplayName: "global"},
}

// NormalizeLocation turns a display name into the ARM name ("West Europe"
// and "westeurope" are one location to ARM).
func NormalizeLocation(l string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(l), " ", ""))
}

// KnownLocation reports whether l names a location of Locations.
func KnownLocation(l string) bool {
	n := NormalizeLocation(l)
	for _, k := range Locations {
		if k.Name == n {
			return true
		}
	}
	return false
}

// DisplayLocation is the display name of location l ("West Europe" for
// westeurope or "West Europe"), or l itself when it is not known.
func DisplayLocation(l string) string {
	n := NormalizeLocation(l)
	for _, loc := range Locations {
		if loc.Name == n {
			return loc.DisplayName
		}
	}
	return l
}
