//! The Host and Origin check in front of everything on the API port (the web app, gRPC,
//! grpc-web), against DNS rebinding: a page on `attacker.example` whose name is re-pointed at
//! 127.0.0.1 makes the browser send `Host: attacker.example` (and a matching `Origin`) — a
//! same-origin request as far as the browser knows, so CORS never applies. Such a request is
//! refused here, before any routing.
//!
//! A request passes when its host (`Host`, or the `:authority` of HTTP/2) is a loopback name
//! (`localhost`, `*.localhost`), an IP address (an address cannot be re-pointed), or one of
//! `allowed_hosts`; a request without a host is not from a browser and passes. A call (`POST`)
//! that carries an `Origin` must also come from an allowed origin: one of `cors_origins`, or the
//! host it was sent to. Refusals are PERMISSION_DENIED for gRPC and grpc-web callers and a 403
//! page otherwise.

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// What may call.
#[derive(Debug)]
struct Allowed {
    /// Extra host names, lower case.
    hosts: Vec<String>,
    /// Browser origins (`*`, exact, or `scheme://host:*`).
    origins: Vec<String>,
}

#[derive(Clone)]
pub struct GuardLayer {
    allowed: Arc<Allowed>,
}

impl GuardLayer {
    pub fn new(hosts: &[String], origins: &[String]) -> Self {
        let hosts = hosts.iter().map(|h| h.trim_end_matches('.').to_ascii_lowercase()).collect();
        Self { allowed: Arc::new(Allowed { hosts, origins: origins.to_vec() }) }
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;
    fn layer(&self, inner: S) -> Guard<S> {
        Guard { inner, allowed: self.allowed.clone() }
    }
}

#[derive(Clone)]
pub struct Guard<S> {
    inner: S,
    allowed: Arc<Allowed>,
}

/// Whether `origin` matches one of `patterns` (`*`, an exact origin, or `scheme://host:*` for any
/// port of that host). Shared with the CORS layer.
pub fn origin_matches(patterns: &[String], origin: &str) -> bool {
    patterns.iter().any(|p| {
        p == "*"
            || match p.strip_suffix(":*") {
                Some(prefix) => origin.strip_prefix(prefix).is_some_and(|rest| {
                    rest.is_empty()
                        || rest.strip_prefix(':').is_some_and(|port| port.chars().all(|c| c.is_ascii_digit()))
                }),
                None => origin == p,
            }
    })
}

/// The host name (lower case, no trailing dot) and port of an authority (`name:port`, `[v6]:port`).
fn split_authority(authority: &str) -> (String, Option<u16>) {
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((host, rest)) => (host, rest.strip_prefix(':')),
            None => (v6, None),
        },
        None => match authority.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => (host, Some(port)),
            _ => (authority, None),
        },
    };
    (host.trim_end_matches('.').to_ascii_lowercase(), port.and_then(|p| p.parse().ok()))
}

/// Whether `origin` (`scheme://authority`) is the host and port `authority` names; a missing port
/// is the scheme's default.
fn same_origin(origin: &str, authority: &str) -> bool {
    let Some((scheme, origin_authority)) = origin.split_once("://") else { return false };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return false,
    };
    let (origin_host, origin_port) = split_authority(origin_authority);
    let (host, port) = split_authority(authority);
    origin_host == host && origin_port.unwrap_or(default) == port.unwrap_or(default)
}

impl Allowed {
    fn host(&self, host: &str) -> bool {
        host == "localhost"
            || host.ends_with(".localhost")
            || host.parse::<IpAddr>().is_ok()
            || self.hosts.iter().any(|h| h == host)
    }

    /// Why a request is refused, if it is.
    fn refusal<B>(&self, req: &Request<B>) -> Option<String> {
        let authority = req
            .uri()
            .authority()
            .map(|a| a.as_str().to_owned())
            .or_else(|| req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_owned));
        if let Some(authority) = &authority {
            let (host, _) = split_authority(authority);
            if !self.host(&host) {
                return Some(format!(
                    "this server does not answer for the host {host:?} (allowed: localhost, IP addresses and allowed_hosts)"
                ));
            }
        }
        if req.method() == Method::POST
            && let Some(origin) = req.headers().get(header::ORIGIN)
        {
            let origin = origin.to_str().unwrap_or_default();
            let same = authority.as_deref().is_some_and(|a| same_origin(origin, a));
            if !same && !origin_matches(&self.origins, origin) {
                return Some(format!("calls from the origin {origin:?} are not allowed (see cors_origins)"));
            }
        }
        None
    }
}

/// The refusal: a gRPC status for gRPC and grpc-web callers (who read `grpc-status`), a page for
/// anyone else.
fn refused(content_type: Option<&HeaderValue>, message: &str) -> Response<tonic::body::Body> {
    metrics::counter!("aware_limit_refusals_total", "limit" => "host").increment(1);
    let grpc = content_type.and_then(|c| c.to_str().ok()).filter(|c| c.starts_with("application/grpc"));
    match grpc {
        Some(content_type) => {
            let status = tonic::Status::permission_denied(message);
            let mut response = status.into_http::<tonic::body::Body>();
            if let Ok(value) = HeaderValue::from_str(content_type) {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            response
        }
        None => {
            let mut response = Response::new(tonic::body::Body::new(format!("{message}\n")));
            *response.status_mut() = StatusCode::FORBIDDEN;
            response
        }
    }
}

impl<S, B> Service<Request<B>> for Guard<S>
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
        match self.allowed.refusal(&req) {
            Some(why) => {
                tracing::info!(method = %req.method(), path = %req.uri().path(), reason = %why, "request refused");
                let response = refused(req.headers().get(header::CONTENT_TYPE), &why);
                Box::pin(async move { Ok(response) })
            }
            None => Box::pin(self.inner.call(req)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Allowed {
        Allowed {
            hosts: vec!["aware.example.com".into()],
            origins: vec!["http://localhost:*".into(), "http://127.0.0.1:*".into()],
        }
    }

    fn request(host: Option<&str>, origin: Option<&str>) -> Request<()> {
        let mut r = Request::builder().method(Method::POST).uri("/aware.v1.DatasetsService/DeleteDataset");
        if let Some(h) = host {
            r = r.header(header::HOST, h);
        }
        if let Some(o) = origin {
            r = r.header(header::ORIGIN, o);
        }
        r.body(()).unwrap()
    }

    #[test]
    fn rebinding_hosts_and_foreign_origins_are_refused() {
        let a = allowed();
        for ok in [
            (Some("127.0.0.1:50051"), None),
            (Some("localhost:50051"), Some("http://localhost:50051")),
            (Some("app.localhost"), None),
            (Some("[::1]:50051"), Some("http://[::1]:50051")),
            (Some("192.168.1.5:50051"), Some("http://192.168.1.5:50051")),
            (Some("AWARE.example.com."), Some("https://aware.example.com")),
            (Some("127.0.0.1:50051"), Some("http://localhost:5173")),
            (None, None),
        ] {
            assert_eq!(a.refusal(&request(ok.0, ok.1)), None, "{ok:?}");
        }
        for bad in [
            (Some("attacker.example:50051"), Some("http://attacker.example:50051")),
            (Some("attacker.example"), None),
            (Some("localhost.attacker.example"), None),
            (Some("127.0.0.1:50051"), Some("http://attacker.example:50051")),
            (Some("127.0.0.1:50051"), Some("null")),
            (Some("192.168.1.5:50051"), Some("http://192.168.1.5:8080")),
            (Some("aware.example.com"), Some("ftp://aware.example.com")),
        ] {
            assert!(a.refusal(&request(bad.0, bad.1)).is_some(), "{bad:?}");
        }
        // A GET carries no call: its origin is not checked (the page itself), its host is.
        let get = Request::builder().uri("/").header(header::HOST, "127.0.0.1").header(header::ORIGIN, "null");
        assert_eq!(a.refusal(&get.body(()).unwrap()), None);
        let uri = Request::builder().uri("http://attacker.example:50051/x").body(()).unwrap();
        assert!(a.refusal(&uri).is_some(), "HTTP/2 :authority");
    }

    #[test]
    fn origins_match_exactly_or_by_any_port() {
        let p = vec!["http://localhost:*".to_owned(), "https://app.example".to_owned()];
        assert!(origin_matches(&p, "http://localhost"));
        assert!(origin_matches(&p, "http://localhost:5173"));
        assert!(!origin_matches(&p, "http://localhost.attacker:5173"));
        assert!(!origin_matches(&p, "http://localhost:5173x"));
        assert!(origin_matches(&p, "https://app.example"));
        assert!(!origin_matches(&p, "https://app.example.evil"));
        assert!(origin_matches(&["*".to_owned()], "https://anything"));
    }
}
