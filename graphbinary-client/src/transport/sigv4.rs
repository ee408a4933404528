//! AWS Signature Version 4 request signing (feature `sigv4`).

use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sigv4::http_request::{
    sign, PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use http::header::{HeaderName, HeaderValue, AUTHORIZATION, HOST};

use super::interceptor::{HttpRequest, InterceptFuture, Interceptor};
use super::BoxError;

/// The service name Amazon Neptune signs with.
pub(crate) const NEPTUNE_SERVICE: &str = "neptune-db";

type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// AWS Signature Version 4 request signing (feature `sigv4`), for Amazon Neptune with IAM
/// database authentication.
///
/// [`SigV4`] is an [`Interceptor`] meant to be the client's authentication interceptor
/// ([`ClientBuilder::auth`](crate::client::ClientBuilder::auth)), so that it signs the request as every
/// other interceptor left it. It signs as the official drivers do: over the final body bytes,
/// with only `host`, `x-amz-date`, `x-amz-content-sha256` (the body's SHA-256) and, with
/// temporary credentials, `x-amz-security-token` as signed headers, so that transport headers
/// (`User-Agent`, `Accept-Encoding`, ...) can change without breaking the signature. The
/// service name defaults to `neptune-db`. The signature itself is computed by AWS's
/// `aws-sigv4` crate.
///
/// ```no_run
/// use aws_credential_types::Credentials;
/// use graphbinary_client::client::{Client, SigV4};
///
/// # fn demo() -> Result<(), graphbinary_client::client::Error> {
/// let credentials = Credentials::new("AKIDEXAMPLE", "secret", None, None, "static");
/// let client = Client::builder("https://my-cluster.cluster-abc.us-east-1.neptune.amazonaws.com:8182/gremlin")
///     .auth(SigV4::new("us-east-1", credentials))
///     .build()?;
/// # drop(client); Ok(()) }
/// ```
///
/// With feature `sigv4-aws-config`, [`SigV4::from_env`] takes the credentials from the default
/// AWS chain (environment, profile files, web identity / IRSA, ECS and EC2 instance metadata),
/// refreshed as they expire.
#[derive(Clone)]
pub struct SigV4 {
    region: String,
    service: String,
    credentials: SharedCredentialsProvider,
    clock: Option<Clock>,
}

impl fmt::Debug for SigV4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigV4")
            .field("region", &self.region)
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

impl SigV4 {
    /// Signs for `region` (e.g. `us-east-1`) and service `neptune-db` with the credentials
    /// `provider` gives (static [`Credentials`](aws_credential_types::Credentials), or any
    /// provider; it is asked for every request, so a caching provider should be used for
    /// credentials that are expensive to get).
    pub fn new(region: impl Into<String>, provider: impl ProvideCredentials + 'static) -> Self {
        SigV4 {
            region: region.into(),
            service: NEPTUNE_SERVICE.to_owned(),
            credentials: SharedCredentialsProvider::new(provider),
            clock: None,
        }
    }

    /// The service name to sign for (default `neptune-db`).
    pub fn service(mut self, service: impl Into<String>) -> Self {
        self.service = service.into();
        self
    }

    /// The clock giving the signing time (default the system clock). For tests that compare
    /// signatures at a fixed time.
    pub fn clock(mut self, clock: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// Signs with credentials from the default AWS credential chain, for `region`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    /// use graphbinary_client::client::{Client, SigV4};
    /// let client = Client::builder("https://my-cluster.cluster-abc.us-east-1.neptune.amazonaws.com:8182/gremlin")
    ///     .auth(SigV4::from_env("us-east-1").await?)
    ///     .build()?;
    /// # drop(client); Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is sent; dropping the future only stops loading the configuration.
    #[cfg(feature = "sigv4-aws-config")]
    pub async fn from_env(
        region: impl Into<String>,
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync + 'static>> {
        let region = region.into();
        let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
            .region(aws_config::Region::new(region.clone()))
            .load()
            .await;
        let provider = config
            .credentials_provider()
            .ok_or("the default AWS credential chain has no provider")?;
        Ok(SigV4::new(region, provider))
    }

    async fn sign(&self, req: &mut HttpRequest) -> Result<(), BoxError> {
        let credentials = self.credentials.provide_credentials().await?;
        let identity: Identity = credentials.into();
        let host = match (req.url.host_str(), req.url.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_owned(),
            (None, _) => return Err("the request URL has no host".into()),
        };
        for stale in ["x-amz-date", "x-amz-security-token", "x-amz-content-sha256"] {
            req.headers.remove(stale);
        }
        req.headers.remove(AUTHORIZATION);
        let mut settings = SigningSettings::default();
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
        let time = self.clock.as_ref().map_or_else(SystemTime::now, |c| c());
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name(&self.service)
            .time(time)
            .settings(settings)
            .build()?
            .into();
        let signable = SignableRequest::new(
            req.method.as_str(),
            req.url.as_str(),
            std::iter::once(("host", host.as_str())),
            SignableBody::Bytes(&req.body),
        )?;
        let (instructions, _signature) = sign(signable, &params)?.into_parts();
        let (headers, _params) = instructions.into_parts();
        req.headers.insert(HOST, HeaderValue::from_str(&host)?);
        for h in headers {
            let mut v = HeaderValue::from_str(h.value())?;
            v.set_sensitive(h.sensitive());
            req.headers.insert(HeaderName::from_static(h.name()), v);
        }
        Ok(())
    }
}

impl Interceptor for SigV4 {
    fn intercept<'a>(&'a self, request: &'a mut HttpRequest) -> InterceptFuture<'a> {
        Box::pin(self.sign(request))
    }

    fn name(&self) -> &str {
        "sigv4"
    }
}
