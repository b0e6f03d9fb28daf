//! Signals that end the program, read as inputs beside the typed lines.

use super::*;

/// Signals that end the program, as inputs: Ctrl-C while no line is being read (the line
/// editor reads it as a key otherwise), a closed terminal, `kill`.
pub(super) struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    ends: Vec<tokio::signal::unix::Signal>,
}

impl Signals {
    pub(super) fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                ends: [SignalKind::terminate(), SignalKind::hangup()]
                    .into_iter()
                    .filter_map(|k| signal(k).ok())
                    .collect(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal: `Interrupt` for Ctrl-C, `End` for the others.
    pub(super) async fn next(&mut self) -> Input {
        #[cfg(unix)]
        {
            let interrupt = async {
                match &mut self.interrupt {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let ends = futures_any(&mut self.ends);
            tokio::select! {
                _ = interrupt => Input::Interrupt,
                _ = ends => Input::End,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Input::Interrupt
        }
    }
}

/// Waits for any of `signals`.
#[cfg(unix)]
async fn futures_any(signals: &mut [tokio::signal::unix::Signal]) {
    if signals.is_empty() {
        return std::future::pending().await;
    }
    std::future::poll_fn(|cx| {
        for s in signals.iter_mut() {
            if s.poll_recv(cx).is_ready() {
                return std::task::Poll::Ready(());
            }
        }
        std::task::Poll::Pending
    })
    .await
}
