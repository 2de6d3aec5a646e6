// App Service Authentication ("Easy Auth", authsettingsV2) with Microsoft Entra ID.
// The platform signs callers in, validates their tokens (issuer, audience,
// signature, expiry) and hands the app the caller as X-MS-CLIENT-PRINCIPAL,
// stripping any copy a client sends; the app (AUTH_MODE=easyauth) reads it
// in shared/adapters/identity.py. Every path needs a signed-in caller except
// /api/health (platform and uptime probes). Unauthenticated calls get 401,
// not a redirect: this is an API. The Entra app registration itself is a
// one-time manual step (docs/sign-in.md).
param appName string

@description('Directory (tenant) id of the Entra app registration.')
param tenantId string

@description('Application (client) id of the Entra app registration that represents this API.')
param clientId string

resource app 'Microsoft.Web/sites@2024-04-01' existing = {
  name: appName
}

// checkov applies its web-config rules to every Microsoft.Web/sites/config; this
// one holds only the authentication settings, hence the skips below.
resource authSettings 'Microsoft.Web/sites/config@2024-04-01' = {
  // checkov:skip=CKV_AZURE_13:checkov reads only the v1 authsettings shape (properties.enabled); this is authsettingsV2 with platform.enabled true.
  // checkov:skip=CKV_AZURE_63:App Service HTTP file logs do not exist for Functions; requests are logged to Application Insights.
  // checkov:skip=CKV_AZURE_65:Detailed error pages are an App Service web feature; Functions errors go to Application Insights.
  // checkov:skip=CKV_AZURE_66:Failed request tracing is an App Service web feature; Functions traces go to Application Insights.
  // checkov:skip=CKV_AZURE_80:A Python app; no .NET Framework version applies.
  // checkov:skip=CKV_AZURE_88:Flex Consumption has no Azure Files content share; the package lives in a blob container.
  // checkov:skip=CKV_AZURE_222:A public HTTP API by design; every route but health needs an Entra sign-in, a function key and HTTPS.
  parent: app
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: true
    }
    globalValidation: {
      requireAuthentication: true
      unauthenticatedClientAction: 'Return401'
      excludedPaths: [
        '/api/health'
      ]
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        registration: {
          clientId: clientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${tenantId}/v2.0'
        }
        validation: {
          // v2.0 tokens carry the client id, v1.0 tokens the Application ID URI.
          allowedAudiences: [
            clientId
            'api://${clientId}'
          ]
        }
      }
    }
    login: {
      tokenStore: {
        enabled: false
      }
    }
    httpSettings: {
      requireHttps: true
    }
  }
}
