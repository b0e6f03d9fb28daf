//! The node port's connections, held to the public port's rules at their opening: a few at
//! once from one address, and each closed unless it sends HTTP/2's preface and first frame
//! within [`OPENING_TIME`]. Silent connections cannot fill the node's descriptors (a hostile
//! try opened 19,990 and the node's public port stopped answering).
//!
//! Past its opening a node's connection is not held to a client's idle and budget rules: it
//! carries many clients' forwarded calls, each counted at the node it came in by.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::connections::{
    AtTheCap, Backoff, Connections, OPENING_TIME, Replay, Slot, Transport, read_opening,
};
use crate::tls::Wire;

/// Connections the node port takes from one address at once. A node needs one (its channel
/// to this node); a few more cover reconnecting, and several nodes behind one address.
pub const PER_ADDRESS: usize = 32;

/// Accepted connections that made their opening in time, `PER_ADDRESS` at most from one
/// address, counted from their acceptance.
pub fn incoming(listener: TcpListener) -> impl tokio_stream::Stream<Item = std::io::Result<Opened>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        let counted = Connections::default();
        let mut backoff = Backoff::default();
        loop {
            let accepted = tokio::select! {
                () = tx.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => {
                    backoff.reset();
                    accepted
                }
                Err(e) => {
                    backoff.pause(&e).await;
                    continue;
                }
            };
            let Some(slot) = counted.take_slot(peer.ip(), PER_ADDRESS, AtTheCap::Refuse) else {
                metrics::counter!("dudo_node_port_refused_total").increment(1);
                continue;
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                let mut wire = Wire::Plain(stream);
                let opened = tokio::time::timeout(OPENING_TIME, read_opening(&mut wire)).await;
                let Ok(Ok(Some((Transport::Http2, opening)))) = opened else {
                    tracing::debug!(%peer, "node port connection closed: no HTTP/2 opening within {OPENING_TIME:?}");
                    return;
                };
                let _ = tx.send(Ok(Opened { wire, opening: Replay::new(opening), _slot: slot })).await;
            });
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

/// A node port connection past its opening, which is replayed to the transport first.
pub struct Opened {
    wire: Wire,
    opening: Replay,
    _slot: Slot,
}

impl Connected for Opened {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.wire.connect_info()
    }
}

impl AsyncRead for Opened {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.opening.replay(buf) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.wire).poll_read(cx, buf)
    }
}

impl AsyncWrite for Opened {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.wire).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.wire).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.wire).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.wire).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.wire.is_write_vectored()
    }
}
