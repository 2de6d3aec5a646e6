// Optional Durable Task Scheduler backend (durableBackend = 'durableTaskScheduler'):
// a managed orchestration engine instead of task-hub queues and tables in the
// storage account. Higher throughput and no always-ready instance needed to
// drive the queues, at the price of the scheduler's own SKU billing.
param name string
param location string
param tags object = {}
param taskHubName string
param principalId string
param clientId string

// Durable Task Data Contributor.
var dataContributorRoleId = '0ad04412-c4d5-4796-b79c-f76d14c8d402'

resource scheduler 'Microsoft.DurableTask/schedulers@2025-11-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    // Flex Consumption without VNet has no fixed outbound IPs to allow-list;
    // access still requires an AAD token with the data role below.
    ipAllowlist: [
      '0.0.0.0/0'
    ]
    sku: {
      name: 'Consumption'
    }
  }
}

resource taskHub 'Microsoft.DurableTask/schedulers/taskHubs@2025-11-01' = {
  parent: scheduler
  name: taskHubName
}

resource dataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(taskHub.id, principalId, dataContributorRoleId)
  scope: taskHub
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataContributorRoleId)
  }
}

output schedulerName string = scheduler.name
output endpoint string = scheduler.properties.endpoint
output taskHubName string = taskHub.name
output dashboardUrl string = taskHub.properties.dashboardUrl
// Identity-based: the string names the endpoint and the client id, no key.
output connectionString string = 'Endpoint=${scheduler.properties.endpoint};Authentication=ManagedIdentity;ClientID=${clientId}'
