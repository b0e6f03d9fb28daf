//! Connections counted per client address, so one address cannot open connections without
//! bound (each may carry up to `--max-streams-per-connection` calls, and each call a
//! request buffered up to the message size limit), and each holding what its transport may
//! buffer from the memory budget, so any number of addresses cannot either.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Open connections per address.
#[derive(Clone, Default)]
pub struct Connections {
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Connections {
    /// The connection, counted against its address and holding `memory`; none (and the
    /// connection closed) if the address has `most` open already.
    pub fn admit(&self, stream: TcpStream, most: usize, memory: crate::budget::Held) -> Option<Counted> {
        let ip = stream.peer_addr().ok()?.ip();
        let mut open = self.open.lock().ok()?;
        let n = open.entry(ip).or_default();
        if *n >= most {
            tracing::debug!(%ip, "connection refused: the address has as many open as it may");
            return None;
        }
        *n += 1;
        Some(Counted { stream, ip, open: Arc::clone(&self.open), _memory: memory })
    }
}

/// A connection that gives its place back when it closes.
pub struct Counted {
    stream: TcpStream,
    ip: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// What the connection's transport may buffer, held from the budget while it is open.
    _memory: crate::budget::Held,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock()
            && let Some(n) = open.get_mut(&self.ip)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

impl Connected for Counted {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
