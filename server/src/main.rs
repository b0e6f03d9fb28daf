//! `dudo-server`: hosts dudo tables over gRPC.

use clap::Parser;

/// The dudo game server: Liar's Dice tables over gRPC.
#[derive(Parser)]
#[command(name = "dudo-server", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "DUDO_LISTEN", default_value = "127.0.0.1:50051")]
    listen: String,
    /// Log format: text or json.
    #[arg(long, env = "DUDO_LOG_FORMAT", default_value = "text")]
    log_format: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    if args.log_format == "json" {
        tracing_subscriber::fmt().json().with_env_filter(filter).init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    let listener = tokio::net::TcpListener::bind(&args.listen).await?;
    // Printed on stdout too, so scripts and tests that bind port 0 learn the port.
    println!("dudo-server listening on {}", listener.local_addr()?);
    tracing::info!(address = %listener.local_addr()?, "dudo-server listening");
    let shutdown = async {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return,
            };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = ctrl_c.await;
        }
        tracing::info!("shutting down");
    };
    dudo_server::run(listener, shutdown).await?;
    Ok(())
}
