//! TLS on the client port (`--tls-cert`, `--tls-key`): rustls, with the certificate chain and
//! key read from PEM files.
//!
//! The handshake happens in the accept path (connections.rs), inside the time a connection
//! has to open: a client that starts a handshake and stalls is closed like one that sends
//! nothing. ALPN offers HTTP/2 (gRPC) and HTTP/1.1 (gRPC-Web and the browser page), both
//! served on the one port as in plaintext.
//!
//! Certificates are short-lived where they are renewed by a tool (cert-manager, certbot):
//! the files are looked at every [`RELOAD_EVERY`] and, when they changed, read again. New
//! connections get the new certificate; a pair that does not load is reported and the old
//! one kept.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// How often the certificate's files are looked at for a renewal.
pub const RELOAD_EVERY: Duration = Duration::from_secs(60);

/// Why a certificate and key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("--tls-cert {path}: {source}")]
    Cert { path: PathBuf, source: std::io::Error },
    #[error("--tls-cert {path}: no certificate in it (a PEM file of -----BEGIN CERTIFICATE----- blocks)")]
    NoCert { path: PathBuf },
    #[error("--tls-cert {path}: {problem}")]
    BadCert { path: PathBuf, problem: String },
    #[error("--tls-key {path}: {problem} (a PEM file with one PKCS#8, PKCS#1 or SEC1 private key)")]
    BadKey { path: PathBuf, problem: String },
    #[error("--tls-cert and --tls-key do not go together: {0}")]
    Mismatch(rustls::Error),
}

/// The client port's TLS: what accepts handshakes now, and where it came from. Cheap to clone.
#[derive(Clone)]
pub struct ServerTls {
    files: Arc<CertFiles>,
    current: Arc<RwLock<Loaded>>,
}

/// Where the certificate chain and the key are.
struct CertFiles {
    cert: PathBuf,
    key: PathBuf,
}

/// A loaded pair, and the files' modification times it was read at.
struct Loaded {
    acceptor: TlsAcceptor,
    stamps: Stamps,
}

type Stamps = (Option<SystemTime>, Option<SystemTime>);

impl ServerTls {
    /// Reads the certificate chain (leaf first) and its key.
    pub fn load(cert: &Path, key: &Path) -> Result<ServerTls, TlsError> {
        let files = CertFiles { cert: cert.to_path_buf(), key: key.to_path_buf() };
        let loaded = files.load()?;
        Ok(ServerTls { files: Arc::new(files), current: Arc::new(RwLock::new(loaded)) })
    }

    /// What accepts a connection's handshake now.
    pub fn acceptor(&self) -> Option<TlsAcceptor> {
        self.current.read().ok().map(|loaded| loaded.acceptor.clone())
    }

    /// Reads the files again if they changed since they were loaded: whether a new pair is in
    /// use. A pair that fails to load leaves the old one (and is reported).
    pub fn reload_if_changed(&self) -> bool {
        let stamps = self.files.stamps();
        if self.current.read().is_ok_and(|loaded| loaded.stamps == stamps) {
            return false;
        }
        match self.files.load() {
            Ok(loaded) => {
                if let Ok(mut current) = self.current.write() {
                    *current = loaded;
                }
                tracing::info!(cert = %self.files.cert.display(), "TLS certificate reloaded");
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "the TLS certificate's files changed but do not load: the old certificate stays in use");
                // Not tried again until the files change again.
                if let Ok(mut current) = self.current.write() {
                    current.stamps = stamps;
                }
                false
            }
        }
    }

    /// Looks for renewed files every [`RELOAD_EVERY`] for as long as the server runs.
    pub fn watch(&self) -> tokio::task::JoinHandle<()> {
        let tls = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(RELOAD_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                let reloading = tls.clone();
                // File reads off the runtime's threads.
                let _ = tokio::task::spawn_blocking(move || reloading.reload_if_changed()).await;
            }
        })
    }
}

/// Whether a connection to the TLS port opened in plaintext, and was told so: an HTTP/1.1
/// request (curl, a browser given http://) is answered `400` with a line saying to use
/// https://, so the mistake is named where it is made. Anything else that is not a TLS
/// handshake is left to the handshake, which refuses it.
pub async fn plaintext_answered(stream: &mut TcpStream) -> std::io::Result<bool> {
    use tokio::io::AsyncWriteExt;
    let mut first = [0u8; 8];
    let n = stream.peek(&mut first).await?;
    let first = &first[..n];
    // A TLS record of the handshake starts 0x16; HTTP/2's preface "PRI *" gets nothing back
    // a gRPC client would show (the client library says what to try instead).
    if first.is_empty() || first[0] == 0x16 || first.starts_with(b"PRI ") || !first[0].is_ascii_uppercase() {
        return Ok(false);
    }
    let said = "This port speaks TLS: use https://\n";
    let answer = format!(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{said}",
        said.len()
    );
    stream.write_all(answer.as_bytes()).await?;
    let _ = stream.shutdown().await;
    Ok(true)
}

impl CertFiles {
    fn stamps(&self) -> Stamps {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        (modified(&self.cert), modified(&self.key))
    }

    fn load(&self) -> Result<Loaded, TlsError> {
        let stamps = self.stamps();
        let cert_path = || self.cert.clone();
        let pem = std::fs::read(&self.cert).map_err(|source| TlsError::Cert { path: cert_path(), source })?;
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TlsError::BadCert { path: cert_path(), problem: e.to_string() })?;
        if chain.is_empty() {
            return Err(TlsError::NoCert { path: cert_path() });
        }
        let key_pem = std::fs::read(&self.key)
            .map_err(|e| TlsError::BadKey { path: self.key.clone(), problem: e.to_string() })?;
        let key = PrivateKeyDer::from_pem_slice(&key_pem)
            .map_err(|e| TlsError::BadKey { path: self.key.clone(), problem: e.to_string() })?;
        // The provider named, not left to whichever the build's features happen to enable.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Mismatch)?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(TlsError::Mismatch)?;
        // gRPC needs HTTP/2; browsers may ask for either for gRPC-Web and the page.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Loaded { acceptor: TlsAcceptor::from(Arc::new(config)), stamps })
    }
}

/// A connection's bytes: as they come, or through TLS (`--tls-cert`).
pub enum Wire {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl Wire {
    pub fn is_tls(&self) -> bool {
        matches!(self, Wire::Tls(_))
    }

    pub fn connect_info(&self) -> TcpConnectInfo {
        match self {
            Wire::Plain(tcp) => tcp.connect_info(),
            Wire::Tls(tls) => tls.get_ref().0.connect_info(),
        }
    }
}

impl AsyncRead for Wire {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Wire::Plain(tcp) => Pin::new(tcp).poll_read(cx, buf),
            Wire::Tls(tls) => Pin::new(tls.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Wire {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Wire::Plain(tcp) => Pin::new(tcp).poll_write(cx, buf),
            Wire::Tls(tls) => Pin::new(tls.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Wire::Plain(tcp) => Pin::new(tcp).poll_flush(cx),
            Wire::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Wire::Plain(tcp) => Pin::new(tcp).poll_shutdown(cx),
            Wire::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Wire::Plain(tcp) => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Wire::Tls(tls) => Pin::new(tls.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Wire::Plain(tcp) => tcp.is_write_vectored(),
            Wire::Tls(tls) => tls.is_write_vectored(),
        }
    }
}
