// Deep research service, pay-per-use: Flex Consumption function app, Storage
// (identity-based), Cosmos DB serverless, Application Insights with AAD auth,
// Key Vault for third-party keys, one user-assigned managed identity, and
// optionally the Durable Task Scheduler. `azd up` deploys this file.
// Plain resource declarations instead of Azure Verified Modules: AVM modules
// are fetched from the public Bicep registry at build time, which this
// project's CI cannot reach; the shape follows the AVM Flex samples.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name; part of every resource name.')
param environmentName string

@minLength(1)
@description('Region for all resources (must offer Flex Consumption).')
param location string

@description('Optional resource group name; default rg-<environmentName>.')
param resourceGroupName string = ''

@description('Durable Functions backend: Azure Storage (default, no extra resource) or the Durable Task Scheduler.')
@allowed(['azureStorage', 'durableTaskScheduler'])
param durableBackend string = 'azureStorage'

@description('Task hub name (host.json reads it as %TASKHUB_NAME%).')
param taskHubName string = 'deepresearch'

@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 40

@allowed([512, 2048, 4096])
param instanceMemoryMB int = 2048

@minValue(0)
@description('Always-ready instances for HTTP functions; 0 = scale to zero.')
param alwaysReadyHttp int = 0

// LLM endpoint: either an OpenAI-compatible base URL + key, or Azure OpenAI
// through the managed identity (set azureOpenAiEndpoint and, to grant the
// role here, azureOpenAiAccountName / azureOpenAiResourceGroup).
param reasoner string = ''
param openAiBaseUrl string = ''
param azureOpenAiEndpoint string = ''
param azureOpenAiAccountName string = ''
param azureOpenAiResourceGroup string = ''
param fastModel string = 'gpt-4o-mini'
param strategicModel string = 'gpt-4o'
param longContextModel string = 'gpt-4o'
param chatModel string = 'gpt-4o-mini'
@description('Embeddings deployment for reranking and hybrid collection search; empty = BM25 only.')
param embeddingModel string = ''
@description('Its vectors\' dimensions: the chunks container\'s vector policy (fixed once created).')
param embeddingDimensions int = 1536

param searchProvider string = ''
param searxngUrl string = ''
param webhookAllowedHosts string = ''

// Sign-in (docs/sign-in.md): the Entra app registration that represents
// the API is created once by hand; its client id is required.
@description('How callers are identified: easyauth (App Service Authentication, default) or jwt (bearer tokens checked by the app).')
@allowed(['easyauth', 'jwt'])
param authMode string = 'easyauth'

@minLength(1)
@description('Application (client) id of the Entra app registration for the API (azd env set AUTH_CLIENT_ID ...).')
param authClientId string

@description('Directory (tenant) id of that app registration; default: the deployment tenant.')
param authTenantId string = ''

@description('Entra app role that may read every session (logged); empty: nobody may.')
param authAdminRole string = ''

@minValue(0)
@description('Delete sessions older than this many days (0 = keep them).')
param sessionRetentionDays int = 0

// Secrets: stored in Key Vault only when given; never echoed in outputs.
@secure()
param openAiApiKey string = ''
@secure()
param tavilyApiKey string = ''
@secure()
param braveApiKey string = ''
@secure()
param webhookSecret string = ''

var abbrs = loadJsonContent('abbreviations.json')
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }
var functionAppName = '${abbrs.webSitesFunctions}${resourceToken}'
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'
var memoryContainerName = 'agent-sessions'
var cosmosDatabaseName = 'deepresearch'
var cosmosContainerName = 'sessions'
var cosmosChunksContainerName = 'chunks'
var collectionsContainerName = 'collections'
var useDts = durableBackend == 'durableTaskScheduler'
var effectiveAuthTenantId = !empty(authTenantId) ? authTenantId : tenant().tenantId

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: !empty(resourceGroupName) ? resourceGroupName : '${abbrs.resourcesResourceGroups}${environmentName}'
  location: location
  tags: tags
}

module identity 'app/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: '${abbrs.managedIdentityUserAssignedIdentities}api-${resourceToken}'
    location: location
    tags: tags
  }
}

module monitoring 'app/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    applicationInsightsName: '${abbrs.insightsComponents}${resourceToken}'
    location: location
    tags: tags
  }
}

module storage 'app/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: '${abbrs.storageStorageAccounts}${resourceToken}'
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
    memoryContainerName: memoryContainerName
    collectionsContainerName: collectionsContainerName
  }
}

module cosmos 'app/cosmos.bicep' = {
  name: 'cosmos'
  scope: rg
  params: {
    accountName: '${abbrs.documentDBDatabaseAccounts}${resourceToken}'
    location: location
    tags: tags
    databaseName: cosmosDatabaseName
    containerName: cosmosContainerName
    chunksContainerName: cosmosChunksContainerName
    embeddingDimensions: embeddingDimensions
    principalId: identity.outputs.principalId
  }
}

module keyVault 'app/keyvault.bicep' = {
  name: 'keyvault'
  scope: rg
  params: {
    name: '${abbrs.keyVaultVaults}${resourceToken}'
    location: location
    tags: tags
    openAiApiKey: openAiApiKey
    tavilyApiKey: tavilyApiKey
    braveApiKey: braveApiKey
    webhookSecret: webhookSecret
  }
}

module rbac 'app/rbac.bicep' = {
  name: 'rbac'
  scope: rg
  params: {
    principalId: identity.outputs.principalId
    storageAccountName: storage.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    keyVaultName: keyVault.outputs.name
  }
}

module dts 'app/dts.bicep' = if (useDts) {
  name: 'dts'
  scope: rg
  params: {
    name: '${abbrs.durableTaskSchedulers}${resourceToken}'
    location: location
    tags: tags
    taskHubName: taskHubName
    principalId: identity.outputs.principalId
    clientId: identity.outputs.clientId
  }
}

module openAiAccess 'app/openai-access.bicep' = if (!empty(azureOpenAiAccountName)) {
  name: 'openai-access'
  scope: resourceGroup(!empty(azureOpenAiResourceGroup) ? azureOpenAiResourceGroup : rg.name)
  params: {
    accountName: azureOpenAiAccountName
    principalId: identity.outputs.principalId
  }
}

module api 'app/api.bicep' = {
  name: 'api'
  scope: rg
  params: {
    name: functionAppName
    planName: '${abbrs.webServerFarms}${resourceToken}'
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    storageBlobEndpoint: storage.outputs.blobEndpoint
    deploymentContainerName: storage.outputs.deploymentContainerName
    memoryContainerName: storage.outputs.memoryContainerName
    applicationInsightsConnectionString: monitoring.outputs.connectionString
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabase: cosmos.outputs.databaseName
    cosmosContainer: cosmos.outputs.containerName
    cosmosChunksContainer: cosmos.outputs.chunksContainerName
    collectionsContainerName: storage.outputs.collectionsContainerName
    secretReferences: keyVault.outputs.appSettingReferences
    durableBackend: durableBackend
    taskHubName: taskHubName
    durableTaskSchedulerConnectionString: useDts ? dts.outputs.connectionString : ''
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    alwaysReadyHttp: alwaysReadyHttp
    reasoner: reasoner
    searchProvider: searchProvider
    openAiBaseUrl: openAiBaseUrl
    azureOpenAiEndpoint: azureOpenAiEndpoint
    fastModel: fastModel
    strategicModel: strategicModel
    longContextModel: longContextModel
    chatModel: chatModel
    embeddingModel: embeddingModel
    searxngUrl: searxngUrl
    webhookAllowedHosts: webhookAllowedHosts
    authMode: authMode
    authTenantId: effectiveAuthTenantId
    authClientId: authClientId
    authAdminRole: authAdminRole
    sessionRetentionDays: sessionRetentionDays
  }
  // Key Vault references and identity-based AzureWebJobsStorage only resolve
  // once the role assignments exist.
  dependsOn: [
    rbac
    cosmos
  ]
}

module auth 'app/auth.bicep' = if (authMode == 'easyauth') {
  name: 'auth'
  scope: rg
  params: {
    appName: api.outputs.name
    tenantId: effectiveAuthTenantId
    clientId: authClientId
  }
}

output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = api.outputs.name
output FUNCTION_APP_URL string = api.outputs.url
output SERVICE_API_URI string = api.outputs.url
// MCP tools (streamable HTTP; /sse below it for older clients); needs the mcp_extension system key.
output MCP_SERVER_URL string = '${api.outputs.url}/runtime/webhooks/mcp'
output AZURE_CLIENT_ID string = identity.outputs.clientId
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output AZURE_STORAGE_ACCOUNT_URL string = storage.outputs.blobEndpoint
output MEMORY_CONTAINER string = memoryContainerName
output COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output COSMOS_DATABASE string = cosmosDatabaseName
output COSMOS_CONTAINER string = cosmosContainerName
output COSMOS_CHUNKS_CONTAINER string = cosmosChunksContainerName
output COLLECTIONS_CONTAINER string = collectionsContainerName
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.applicationInsightsName
output DURABLE_BACKEND string = durableBackend
output AUTH_MODE string = authMode
output AUTH_TENANT_ID string = effectiveAuthTenantId
output TASKHUB_NAME string = taskHubName
output DURABLE_TASK_SCHEDULER_DASHBOARD_URL string = useDts ? dts.outputs.dashboardUrl : ''
