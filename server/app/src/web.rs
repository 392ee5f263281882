//! The web UI on the API's port: `GET`/`HEAD` requests are answered from the built UI's folder
//! (`web_dir`; unknown paths get `index.html`, so the app's own routes load), everything else —
//! gRPC and grpc-web are always `POST` — goes on to the services.

use http::{Method, Request, Response, StatusCode};
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
        let files = dir.map(|d| ServeDir::new(d).fallback(ServeFile::new(d.join("index.html"))));
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
                let response = files.oneshot(req).await.unwrap_or_else(|e: Infallible| match e {});
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
