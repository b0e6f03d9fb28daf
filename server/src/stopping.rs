//! The server is stopping. Tables end their own streams when they are told to stop; the
//! streams that belong to no table (the ladder's `Enter`, `WatchReplay`) end here, at once,
//! with `UNAVAILABLE`, and the ladder seats no one more, so a graceful shutdown never waits
//! on what a client holds open.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::Status;

/// Whether the server is stopping, shared by everything that must know.
#[derive(Clone)]
pub struct Stopping(Arc<watch::Sender<bool>>);

impl Default for Stopping {
    fn default() -> Self {
        Stopping(Arc::new(watch::channel(false).0))
    }
}

/// A stream that ends when the server stops.
pub type Ending<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

impl Stopping {
    /// The server stops now.
    pub fn stop(&self) {
        self.0.send_replace(true);
    }

    pub fn is_stopping(&self) -> bool {
        *self.0.borrow()
    }

    /// `stream`, ended with `UNAVAILABLE` when the server stops.
    pub fn ending<T: Send + 'static>(
        &self,
        stream: impl Stream<Item = Result<T, Status>> + Send + 'static,
    ) -> Ending<T> {
        let mut stopped = self.0.subscribe();
        let stopped = Box::pin(async move {
            let _ = stopped.wait_for(|stopping| *stopping).await;
        });
        Box::pin(EndsOnStop { inner: Box::pin(stream), stopped, done: false })
    }
}

struct EndsOnStop<T> {
    inner: Ending<T>,
    stopped: Pin<Box<dyn Future<Output = ()> + Send>>,
    done: bool,
}

impl<T> Stream for EndsOnStop<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        if self.stopped.as_mut().poll(cx).is_ready() {
            self.done = true;
            return Poll::Ready(Some(Err(Status::unavailable("the server is shutting down"))));
        }
        self.inner.as_mut().poll_next(cx)
    }
}
