//! `aware mcp`: an MCP server on stdin/stdout for desktop clients configured with a command. It
//! relays every JSON-RPC message, both ways, to the aware server's Streamable HTTP endpoint
//! (`/mcp` on the API port, with the same token), so a stdio client gets exactly what an HTTP
//! client gets — the same tools, resources, prompts, progress and elicitation — from one MCP
//! implementation, the server's.

use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{RoleClient, RoleServer};

/// The `/mcp` URL of a server given by its gRPC URL (the same port serves both).
pub(crate) fn endpoint(server: &str) -> String {
    format!("{}/mcp", server.trim_end_matches('/'))
}

/// Relays stdin/stdout to `url` until either side ends.
pub(crate) async fn serve(url: &str, token: Option<&str>) -> anyhow::Result<()> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let mut upstream = StreamableHttpClientTransport::from_config(config);
    let mut local = AsyncRwTransport::<RoleServer, _, _>::new_server(tokio::io::stdin(), tokio::io::stdout());
    loop {
        tokio::select! {
            from_client = local.receive() => match from_client {
                Some(message) => Transport::<RoleClient>::send(&mut upstream, message).await?,
                None => break,
            },
            from_server = Transport::<RoleClient>::receive(&mut upstream) => match from_server {
                Some(message) => local.send(message).await?,
                None => anyhow::bail!("the aware server at {url} closed the MCP session"),
            },
        }
    }
    let _ = Transport::<RoleClient>::close(&mut upstream).await;
    Ok(())
}
