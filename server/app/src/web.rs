//! The web UI on the API's port: `GET`/`HEAD` requests are answered from the built UI's folder
//! (`web_dir`; unknown paths get `index.html`, so the app's own routes load), everything else —
//! gRPC and grpc-web are always `POST` — goes on to the services.
//!
//! Every page and file goes out with a Content-Security-Policy that allows only the app's own
//! scripts, styles and API (no inline script, no `eval`, no images or connections elsewhere, no
//! framing), so markup that slipped into an answer or a dataset could neither run nor call out.
//! The bundles Vite names by their content are cached for good; everything else, `index.html`
//! first, is checked again on every load, so a new release reaches an open browser on its reload.
//! A file with a brotli or gzip copy beside it (`web-client/scripts/compress.mjs` makes them at
//! build time) goes out as the copy the browser accepts (`Accept-Encoding`), brotli first.

use http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use tower::{Layer, Service, ServiceExt};
use tower_http::services::{ServeDir, ServeFile};

type Files = ServeDir<ServeFile>;

#[derive(Clone)]
pub struct WebLayer {
    files: Option<Files>,
}

impl WebLayer {
    /// `dir` is the built UI (with an `index.html`); `None` answers page requests with a hint.
    pub fn new(dir: Option<&Path>) -> Self {
        let files = dir.map(|d| {
            let index = ServeFile::new(d.join("index.html")).precompressed_br().precompressed_gzip();
            ServeDir::new(d).precompressed_br().precompressed_gzip().fallback(index)
        });
        Self { files }
    }
}

impl<S> Layer<S> for WebLayer {
    type Service = Web<S>;
    fn layer(&self, inner: S) -> Web<S> {
        Web { inner, files: self.files.clone() }
    }
}

#[derive(Clone)]
pub struct Web<S> {
    inner: S,
    files: Option<Files>,
}

/// What the app may load and where it may connect: only its own origin. Charts are drawn without
/// `eval` (vega's expression interpreter), and image exports are `data:`/`blob:` URLs.
const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; \
                      connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
                      frame-ancestors 'none'";

/// Vite's output folder for bundles whose file names carry a hash of their content.
const HASHED: &str = "/assets/";

fn secure<B>(response: &mut Response<B>, path: &str) {
    // An unknown path under it gets `index.html` (the fallback), which must not be kept.
    let bundle = path.starts_with(HASHED)
        && response.status() == StatusCode::OK
        && response.headers().get(CONTENT_TYPE).is_some_and(|t| !t.as_bytes().starts_with(b"text/html"));
    let headers = response.headers_mut();
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    let cache = if bundle { "public, max-age=31536000, immutable" } else { "no-cache" };
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    // What was sent depends on what the browser accepts: a cache keeps one copy per encoding.
    headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
}

const NOT_BUILT: &str = "aware's web UI is not built into this server: scripts/serve builds it and passes --web-dir.\n";

impl<S, B> Service<Request<B>> for Web<S>
where
    S: Service<Request<B>, Response = Response<tonic::body::Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        if !matches!(*req.method(), Method::GET | Method::HEAD) {
            return Box::pin(self.inner.call(req));
        }
        match self.files.clone() {
            Some(files) => Box::pin(async move {
                let path = req.uri().path().to_owned();
                let mut response = files.oneshot(req).await.unwrap_or_else(|e: Infallible| match e {});
                secure(&mut response, &path);
                Ok(response.map(tonic::body::Body::new))
            }),
            None => Box::pin(async move {
                let mut response = Response::new(tonic::body::Body::new(NOT_BUILT.to_owned()));
                *response.status_mut() = StatusCode::NOT_FOUND;
                Ok(response)
            }),
        }
    }
}
