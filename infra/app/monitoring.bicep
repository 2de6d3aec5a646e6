// Log Analytics + workspace-based Application Insights. Local (instrumentation
// key) auth is off: the app ingests with its managed identity through
// APPLICATIONINSIGHTS_AUTHENTICATION_STRING, which needs Monitoring Metrics
// Publisher (granted in rbac.bicep).
param logAnalyticsName string
param applicationInsightsName string
param location string
param tags object = {}

@description('Days of log retention; 30 is the free retention of the PerGB2018 tier.')
param retentionInDays int = 30

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = appInsights.name
output applicationInsightsId string = appInsights.id
// The connection string identifies the resource; with local auth disabled it
// grants nothing on its own (ingestion needs an AAD token).
output connectionString string = appInsights.properties.ConnectionString
output logAnalyticsWorkspaceId string = workspace.id
