//! A stream's two ends: the table's (a bounded channel; a full one drops the stream) and the
//! reader's, with the bytes it holds counted against the memory budget until read.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::log::{self, Delivery, StreamBytes};
use crate::budget::Budget;

/// The table's end of a stream: a bounded channel (a full one drops the stream) and the
/// count of bytes it holds.
pub struct StreamSink {
    tx: mpsc::Sender<Delivery>,
    bytes: Arc<StreamBytes>,
}

impl log::Sink for StreamSink {
    fn offer(&mut self, delivery: Delivery) -> Result<(), Delivery> {
        self.tx.try_send(delivery).map_err(mpsc::error::TrySendError::into_inner)
    }
    fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
    fn bytes(&self) -> &StreamBytes {
        &self.bytes
    }
}

/// The reader's end of a stream: takes deliveries, and gives back their bytes as it does
/// (and, when dropped, what it never read).
pub struct StreamReader {
    rx: mpsc::Receiver<Delivery>,
    bytes: Arc<StreamBytes>,
}

impl tokio_stream::Stream for StreamReader {
    type Item = Delivery;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Delivery>> {
        let polled = self.rx.poll_recv(cx);
        if let std::task::Poll::Ready(Some(delivery)) = &polled {
            self.bytes.release(delivery);
        }
        polled
    }
}

impl Drop for StreamReader {
    fn drop(&mut self) {
        self.rx.close();
        while let Ok(delivery) = self.rx.try_recv() {
            self.bytes.release(&delivery);
        }
    }
}

/// A new stream's two ends, its bytes counted against `budget`.
pub fn stream_channel(budget: Arc<Budget>) -> (StreamSink, StreamReader) {
    let (tx, rx) = mpsc::channel(log::SUBSCRIBER_BUFFER);
    let bytes = StreamBytes::new(budget);
    (StreamSink { tx, bytes: Arc::clone(&bytes) }, StreamReader { rx, bytes })
}
