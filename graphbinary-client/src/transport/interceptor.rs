//! Request interceptors: hooks that see and may change each final HTTP request.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use http::Method;
use url::Url;

use crate::format::java::base64;

/// The HTTP request as it will be sent, handed to each [`Interceptor`] in turn.
///
/// The headers are all the headers the client sends except `Host` (derived from the URL by the
/// HTTP library unless an interceptor sets it), `Content-Length` and `Transfer-Encoding`
/// (derived from the body).
///
/// Its `Debug` redacts the URL's password ([`redact_url`](super::redact_url)) and the values of
/// sensitive headers (`Authorization` as [`BasicAuth`] and `SigV4` set it, the SigV4 session
/// token).
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpRequest {
    /// The method (`POST`).
    pub method: Method,
    /// The URL of the host this attempt goes to.
    pub url: Url,
    /// The request headers (`Accept`, `Content-Type`, `Accept-Encoding`, `User-Agent`,
    /// `X-Transaction-Id` inside a transaction, and whatever earlier interceptors added).
    pub headers: HeaderMap,
    /// The serialized body (the JSON request message).
    pub body: Bytes,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &super::redact_url(self.url.as_str()))
            .field("headers", &self.headers)
            .field("body", &self.body)
            .finish()
    }
}

impl HttpRequest {
    /// A request, e.g. to test an interceptor with.
    ///
    /// ```
    /// use graphbinary_client::client::{interceptor_fn, HeaderMap, HttpRequest, Interceptor, Method, Url};
    ///
    /// let tag = interceptor_fn("tag", |req| {
    ///     req.headers.insert("x-tag", "1".parse()?);
    ///     Ok(())
    /// });
    /// let url = Url::parse("http://127.0.0.1:8182/gremlin").unwrap();
    /// let mut req = HttpRequest::new(Method::POST, url, HeaderMap::new(), "{}");
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(tag.intercept(&mut req)).unwrap();
    /// assert_eq!(req.headers["x-tag"], "1");
    /// ```
    pub fn new(method: Method, url: Url, headers: HeaderMap, body: impl Into<Bytes>) -> Self {
        HttpRequest {
            method,
            url,
            headers,
            body: body.into(),
        }
    }
}

/// The future an [`Interceptor`] returns.
pub type InterceptFuture<'a> = Pin<
    Box<
        dyn Future<Output = Result<(), Box<dyn std::error::Error + Send + Sync + 'static>>>
            + Send
            + 'a,
    >,
>;

/// Request interceptors: an ordered chain of hooks that see, and may change, the final HTTP
/// request (method, URL, headers, body bytes) just before it is sent.
///
/// The body is serialized before the chain runs, so an interceptor sees the exact bytes that
/// go on the wire (a signer such as `SigV4`, feature `sigv4`, needs them). Interceptors run in
/// the order they were added with [`ClientBuilder::interceptor`](crate::client::ClientBuilder::interceptor);
/// the authentication interceptor, set with [`ClientBuilder::auth`](crate::client::ClientBuilder::auth)
/// (or [`basic_auth`](crate::client::ClientBuilder::basic_auth)), always runs last, as in the official
/// drivers, so it signs or authorizes the request as the others left it.
///
/// An interceptor runs once per attempt: when a client with several hosts moves a request that
/// could not connect to another host, the chain runs again for the new URL.
///
/// A failing interceptor stops the request before anything is sent; the failure is returned
/// as [`Error::Interceptor`](crate::client::Error::Interceptor) with the interceptor's name and error.
///
/// ```
/// use graphbinary_client::client::{interceptor_fn, Client};
///
/// # fn demo() -> Result<(), graphbinary_client::client::Error> {
/// let client = Client::builder("http://127.0.0.1:8182/gremlin")
///     .interceptor(interceptor_fn("tenant", |req| {
///         req.headers.insert("x-tenant", "blue".parse()?);
///         Ok(())
///     }))
///     .basic_auth("stephen", "password")
///     .build()?;
/// # drop(client); Ok(()) }
/// ```
///
/// Implement it for hooks that need to wait (e.g. for credentials); [`interceptor_fn`] wraps a
/// synchronous closure.
pub trait Interceptor: Send + Sync + 'static {
    /// Inspects or changes `request`. An error stops the request before it is sent.
    ///
    /// # Cancel safety
    ///
    /// The future may be dropped at any `.await` (when the caller drops the request); it must
    /// leave no shared state half-changed when that happens.
    fn intercept<'a>(&'a self, request: &'a mut HttpRequest) -> InterceptFuture<'a>;

    /// A name for error messages (default: the type's name).
    fn name(&self) -> &str {
        std::any::type_name::<Self>()
    }
}

impl fmt::Debug for dyn Interceptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An [`Interceptor`] made from a synchronous closure, see [`interceptor_fn`].
pub struct FnInterceptor<F> {
    name: String,
    f: F,
}

impl<F> fmt::Debug for FnInterceptor<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnInterceptor")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// An interceptor named `name` that runs `f` on each request.
///
/// ```
/// use graphbinary_client::client::interceptor_fn;
///
/// let drop_user_agent = interceptor_fn("no-user-agent", |req| {
///     req.headers.remove("user-agent");
///     Ok(())
/// });
/// # let _ = drop_user_agent;
/// ```
pub fn interceptor_fn<F>(name: impl Into<String>, f: F) -> FnInterceptor<F>
where
    F: Fn(&mut HttpRequest) -> Result<(), Box<dyn std::error::Error + Send + Sync + 'static>>
        + Send
        + Sync
        + 'static,
{
    FnInterceptor {
        name: name.into(),
        f,
    }
}

impl<F> Interceptor for FnInterceptor<F>
where
    F: Fn(&mut HttpRequest) -> Result<(), Box<dyn std::error::Error + Send + Sync + 'static>>
        + Send
        + Sync
        + 'static,
{
    fn intercept<'a>(&'a self, request: &'a mut HttpRequest) -> InterceptFuture<'a> {
        let r = (self.f)(request);
        Box::pin(std::future::ready(r))
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// HTTP Basic authentication: sets `Authorization: Basic base64(user:password)` (standard
/// alphabet, as the official drivers send it). [`ClientBuilder::basic_auth`](crate::client::ClientBuilder::basic_auth)
/// installs it as the authentication interceptor.
#[derive(Clone)]
pub struct BasicAuth {
    header: HeaderValue,
}

impl fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BasicAuth { .. }")
    }
}

impl BasicAuth {
    /// Basic authentication with `user` and `password`.
    pub fn new(user: &str, password: &str) -> Self {
        let mut header = HeaderValue::from_str(&basic_auth_header(user, password))
            .expect("base64 text is a valid header value");
        header.set_sensitive(true);
        BasicAuth { header }
    }
}

impl Interceptor for BasicAuth {
    fn intercept<'a>(&'a self, request: &'a mut HttpRequest) -> InterceptFuture<'a> {
        request.headers.insert(AUTHORIZATION, self.header.clone());
        Box::pin(std::future::ready(Ok(())))
    }

    fn name(&self) -> &str {
        "basic-auth"
    }
}

/// The chain of interceptors a client runs, in order (authentication last).
#[derive(Clone, Default)]
pub(crate) struct Chain(pub(crate) Vec<std::sync::Arc<dyn Interceptor>>);

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|i| i.name()))
            .finish()
    }
}

impl<'a> IntoIterator for &'a Chain {
    type Item = &'a std::sync::Arc<dyn Interceptor>;
    type IntoIter = std::slice::Iter<'a, std::sync::Arc<dyn Interceptor>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// `Basic base64(user:password)` with the standard alphabet, as the official drivers send it.
pub(crate) fn basic_auth_header(user: &str, pass: &str) -> String {
    format!("Basic {}", base64(format!("{user}:{pass}").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_auth_is_standard_base64() {
        assert_eq!(basic_auth_header("user", "pass"), "Basic dXNlcjpwYXNz");
        assert_eq!(basic_auth_header("a", ""), "Basic YTo=");
        assert_eq!(basic_auth_header("ab", ""), "Basic YWI6");
        assert_eq!(basic_auth_header("?>", "?"), "Basic Pz46Pw==");
    }
}
