// The function app on Flex Consumption (FC1, Linux, Python 3.11): scales to
// zero, bills per execution, runs as the user-assigned identity and reaches
// every dependency with it. App settings are a separate `appsettings` config
// resource so they can use the app's own host name (PUBLIC_BASE_URL).
param name string
param planName string
param location string
param tags object = {}

param identityId string
param identityClientId string

param storageAccountName string
param storageBlobEndpoint string
param deploymentContainerName string
param memoryContainerName string

param applicationInsightsConnectionString string

param cosmosEndpoint string
param cosmosDatabase string
param cosmosContainer string
param cosmosChunksContainer string
param collectionsContainerName string

@description('App setting values for secrets (@Microsoft.KeyVault(SecretUri=...) or empty), keyed openAiApiKey, tavilyApiKey, braveApiKey, webhookSecret.')
param secretReferences object

@allowed(['azureStorage', 'durableTaskScheduler'])
param durableBackend string = 'azureStorage'
param taskHubName string
param durableTaskSchedulerConnectionString string = ''

@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 40
@allowed([512, 2048, 4096])
param instanceMemoryMB int = 2048
@description('Always-ready instances for the HTTP group (0 = scale to zero; 1 removes HTTP cold starts at a fixed cost).')
@minValue(0)
param alwaysReadyHttp int = 0

@description('Worker threads for sync functions; keep in line with host.json durableTask concurrency.')
param pythonThreadCount int = 16

@description('Stream /events as one open SSE response (the FastAPI extension, app-wide); false = long-polling.')
param httpStreaming bool = false

// Settings read by shared/core/config.py (one per Settings field).
param reasoner string = ''
param searchProvider string = ''
param openAiBaseUrl string = ''
param azureOpenAiEndpoint string = ''
param azureOpenAiApiVersion string = '2024-10-21'
param fastModel string = 'gpt-4o-mini'
param strategicModel string = 'gpt-4o'
param longContextModel string = 'gpt-4o'
param chatModel string = 'gpt-4o-mini'
param embeddingModel string = ''
param searxngUrl string = ''
param searchBlockedDomains string = ''
param searchBlockedKeywords string = ''
param webhookAllowedHosts string = ''
param maxTokensPerSession string = ''
param maxCostPerSessionUsd string = ''

// Who may see what (docs/sign-in.md): Easy Auth signs callers in (auth.bicep).
@allowed(['easyauth', 'jwt'])
param authMode string = 'easyauth'
param authTenantId string
param authClientId string
param authAdminRole string = ''
@description('Delete sessions older than this many days (0 = keep them).')
@minValue(0)
param sessionRetentionDays int = 0

var useDts = durableBackend == 'durableTaskScheduler'

// The Azure Storage backend needs one always-ready instance in the `durable`
// group to keep polling the task hub queues (see infra/README.md).
var durableAlwaysReady = [
  {
    name: 'durable'
    instanceCount: 1
  }
]
var httpAlwaysReady = [
  {
    name: 'http'
    instanceCount: alwaysReadyHttp
  }
]

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  // checkov:skip=CKV_AZURE_225:Zone redundancy on Flex needs always-ready instances in every zone, a fixed cost this pay-per-use shape avoids.
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true
  }
}

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    // checkov:skip=CKV_AZURE_222:A public HTTP API by design; routes require an Entra sign-in (auth.bicep), function keys and HTTPS.
    // checkov:skip=CKV_AZURE_212:Scale to zero is the point of the plan; a minimum instance count is a fixed cost (see alwaysReadyHttp).
    // checkov:skip=CKV_AZURE_213:App Service health-check pings would keep instances alive and billed; the platform manages Flex instances.
    // checkov:skip=CKV_AZURE_17:Client certificates would break callers that use function keys (webhooks, scripts); TLS is enforced.
    serverFarmId: plan.id
    httpsOnly: true
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageBlobEndpoint}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        alwaysReady: concat(useDts ? [] : durableAlwaysReady, alwaysReadyHttp > 0 ? httpAlwaysReady : [])
      }
      runtime: {
        name: 'python'
        version: '3.11'
      }
    }
  }
}

// The Functions host itself: identity-based storage, AAD telemetry, task hub.
var hostSettings = {
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsightsConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  // DefaultAzureCredential in our code picks the user-assigned identity by this id.
  AZURE_CLIENT_ID: identityClientId
  TASKHUB_NAME: taskHubName
  PYTHON_THREADPOOL_THREAD_COUNT: string(pythonThreadCount)
}

// Switches host.json's storageProvider to the scheduler without a second host.json.
var schedulerSettings = {
  DURABLE_TASK_SCHEDULER_CONNECTION_STRING: durableTaskSchedulerConnectionString
  AzureFunctionsJobHost__extensions__durableTask__storageProvider__type: 'azureManaged'
  AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName: 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING'
}
var durableTaskSchedulerSettings = useDts ? schedulerSettings : {}
// The worker loads the FastAPI extension (HTTP streaming) only with init indexing on.
var streamingSettings = httpStreaming ? { PYTHON_ENABLE_INIT_INDEXING: '1' } : {}

// Every field of shared.core.config.Settings, upper-cased. Empty string = unset
// (Settings treats blank optional values as None); numbers are the code defaults.
var codeSettings = {
  REASONER: reasoner
  SEARCH_PROVIDER: searchProvider
  OPENAI_API_KEY: secretReferences.openAiApiKey
  OPENAI_BASE_URL: openAiBaseUrl
  AZURE_OPENAI_ENDPOINT: azureOpenAiEndpoint
  // Empty on purpose: with an endpoint and no key the app uses its managed identity.
  AZURE_OPENAI_API_KEY: ''
  AZURE_OPENAI_API_VERSION: azureOpenAiApiVersion
  FAST_MODEL: fastModel
  STRATEGIC_MODEL: strategicModel
  LONG_CONTEXT_MODEL: longContextModel
  CHAT_MODEL: chatModel
  EMBEDDING_MODEL: embeddingModel
  EMBEDDING_BATCH_SIZE: '64'
  LLM_STRUCTURED_OUTPUT: 'auto'
  LLM_STREAM_ANSWERS: 'true'
  LLM_TIMEOUT_SECONDS: '60'
  LLM_SLOW_CALL_SECONDS: '10'
  LLM_TIMEOUT_SECONDS_FAST: ''
  LLM_TIMEOUT_SECONDS_STRATEGIC: ''
  LLM_TIMEOUT_SECONDS_LONG_CONTEXT: ''
  LLM_TIMEOUT_SECONDS_CHAT: ''
  LLM_CONTEXT_TOKENS: ''
  LLM_CONTEXT_TOKENS_FAST: ''
  LLM_CONTEXT_TOKENS_STRATEGIC: ''
  LLM_CONTEXT_TOKENS_LONG_CONTEXT: ''
  LLM_CONTEXT_TOKENS_CHAT: ''
  LLM_MAX_RETRIES: '3'
  MAX_STRUCTURED_OUTPUT_RETRIES: '3'
  MAX_CONTEXT_CHARS: '20000'
  MAX_TOKENS_PER_SESSION: maxTokensPerSession
  MAX_COST_PER_SESSION_USD: maxCostPerSessionUsd
  TAVILY_API_KEY: secretReferences.tavilyApiKey
  SEARXNG_URL: searxngUrl
  BRAVE_API_KEY: secretReferences.braveApiKey
  LOCAL_CORPUS_PATH: ''
  SEARCH_BLOCKED_DOMAINS: searchBlockedDomains
  SEARCH_BLOCKED_KEYWORDS: searchBlockedKeywords
  SOURCE_TIERS_FILE: ''
  // Research limits: empty means the code's default (docs/limits.md).
  DEEP_SEARCH_QUERIES: ''
  DEEP_SEARCH_MAX_RESULTS: ''
  SPEED_MAX_ITERATIONS: ''
  BALANCED_MAX_ITERATIONS: ''
  DEEP_SEARCH_SCRAPE_TOP_N: ''
  DEEP_SEARCH_RERANK_TOP_K: ''
  CHAT_HISTORY_LIMIT: '10'
  FETCH_MAX_BYTES: '2000000'
  FETCH_TIMEOUT_SECONDS: '15'
  FETCH_ALLOWED_HOSTS: ''
  DEEP_RESEARCH_NUM_AGENTS: ''
  DEEP_RESEARCH_AGENT_MAX_STEPS: ''
  DEEP_RESEARCH_MAX_SUPERVISOR_CALLS: ''
  DEEP_RESEARCH_SUPERVISOR_MAX_ITERATIONS: ''
  DEEP_RESEARCH_DEFAULT_MAX_ITERATIONS: ''
  DEEP_RESEARCH_RUN_DEEP_SEARCH_FIRST: ''
  DEEP_RESEARCH_ENABLE_CLARIFYING_QUESTIONS: ''
  DEEP_RESEARCH_CLARIFICATION_TIMEOUT_MINUTES: ''
  DEEP_RESEARCH_REQUIRE_PLAN_APPROVAL: ''
  DEEP_RESEARCH_PLAN_APPROVAL_TIMEOUT_MINUTES: ''
  DEEP_RESEARCH_PLAN_APPROVAL_TIMEOUT_ACTION: ''
  ACTIVITY_RETRY_FIRST_INTERVAL_MS: ''
  ACTIVITY_RETRY_MAX_ATTEMPTS: ''
  // Read by devhost only; the Functions host enforces keys itself in Azure.
  DEVHOST_REQUIRE_KEYS: 'false'
  HTTP_STREAMING: httpStreaming ? 'true' : 'false'
  AUTH_MODE: authMode
  // WEBSITE_AUTH_ENABLED is the platform's own (True with Easy Auth on): never set here.
  AUTH_TRUST_PRINCIPAL_HEADER: 'false'
  AUTH_TENANT_ID: authTenantId
  AUTH_CLIENT_ID: authClientId
  AUTH_JWT_ISSUER: ''
  AUTH_JWKS_URL: ''
  AUTH_ADMIN_ROLE: authAdminRole
  SESSION_RETENTION_DAYS: sessionRetentionDays > 0 ? string(sessionRetentionDays) : ''
  FOLLOW_UP_PAGE_MAX_AGE_HOURS: '168'
  WATCH_MIN_INTERVAL_SECONDS: '3600'
  // The package directory is read-only on Flex; /tmp is the writable scratch space.
  DATA_DIR: '/tmp/deepresearch'
  COSMOS_ENDPOINT: cosmosEndpoint
  // Empty on purpose: Cosmos DB local auth is disabled; the store uses the identity.
  COSMOS_KEY: ''
  COSMOS_DATABASE: cosmosDatabase
  COSMOS_CONTAINER: cosmosContainer
  COSMOS_CHUNKS_CONTAINER: cosmosChunksContainer
  COLLECTIONS_CONTAINER: collectionsContainerName
  COSMOS_VERIFY_TLS: 'true'
  // Empty on purpose: shared keys are off; the blob store uses the account URL + identity.
  AZURE_STORAGE_CONNECTION_STRING: ''
  AZURE_STORAGE_ACCOUNT_URL: storageBlobEndpoint
  MEMORY_CONTAINER: memoryContainerName
  MEMORY_MAX_FILE_BYTES: '16777216'
  COLLECTION_MAX_FILE_BYTES: '20971520'
  COLLECTION_MAX_FILES_PER_REQUEST: '20'
  COLLECTION_MAX_DOCUMENTS: '1000'
  COLLECTION_MAX_REQUEST_BYTES: '104857600'
  COLLECTION_MAX_CRAWL_PAGES: '50'
  COSMOS_READ_TIMEOUT_SECONDS: ''
  WEBHOOK_SECRET: secretReferences.webhookSecret
  WEBHOOK_ALLOWED_HOSTS: webhookAllowedHosts
  PDF_FONT_PATH: ''
  PUBLIC_BASE_URL: 'https://${app.properties.defaultHostName}'
  OTEL_EXPORTER_OTLP_ENDPOINT: ''
  OTEL_CAPTURE_CONTENT: 'false'
  EVAL_JUDGE_MODEL: ''
  // Quotas per person, 0 = unlimited: set them in the app settings for a shared deployment.
  QUOTA_CONCURRENT_SESSIONS_PER_OWNER: '0'
  QUOTA_SESSIONS_PER_DAY_PER_OWNER: '0'
  QUOTA_TOKENS_PER_DAY_PER_OWNER: '0'
  QUOTA_COST_PER_DAY_PER_OWNER_USD: '0'
  QUOTA_OPEN_STREAMS_PER_OWNER: '10'
}

// checkov applies web-config rules to every Microsoft.Web/sites/config; this
// one holds only app settings, hence the skips below.
resource appSettings 'Microsoft.Web/sites/config@2024-04-01' = {
  // checkov:skip=CKV_AZURE_13:Authentication is its own authsettingsV2 resource (auth.bicep); this one holds only app settings.
  // checkov:skip=CKV_AZURE_63:App Service HTTP file logs do not exist for Functions; requests are logged to Application Insights.
  parent: app
  // checkov:skip=CKV_AZURE_65:Detailed error pages are an App Service web feature; Functions errors go to Application Insights.
  // checkov:skip=CKV_AZURE_66:Failed request tracing is an App Service web feature; Functions traces go to Application Insights.
  name: 'appsettings'
  // checkov:skip=CKV_AZURE_80:A Python app; no .NET Framework version applies.
  // checkov:skip=CKV_AZURE_88:Flex Consumption has no Azure Files content share; the package lives in a blob container.
  // checkov:skip=CKV_AZURE_222:A public HTTP API by design; routes require function keys and HTTPS.
  properties: union(hostSettings, durableTaskSchedulerSettings, streamingSettings, codeSettings)
}

output name string = app.name
output defaultHostName string = app.properties.defaultHostName
output url string = 'https://${app.properties.defaultHostName}'
