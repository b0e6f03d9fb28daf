//! A connection's opening: HTTP/2's preface and first frame, or an HTTP/1.1 (gRPC-Web)
//! request's whole head, read before the connection is admitted (the public port's and the
//! node port's alike), and then replayed to the transport as if never read.

use tokio::io::{AsyncReadExt, ReadBuf};

use crate::tls::Wire;

/// The longest opening read: an HTTP/1.1 request head past it is refused (gRPC-Web heads
/// are a few hundred bytes).
const MAX_OPENING: usize = 16 * 1024;
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a connection opened with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    Http2,
    Http1,
}

/// Reads a connection's opening (HTTP/2's preface and first frame, or an HTTP/1.1 request's
/// head); none if it closed first or sent something else. What was read is replayed to the
/// transport.
pub(crate) async fn read_opening(stream: &mut Wire) -> std::io::Result<Option<(Transport, Vec<u8>)>> {
    let mut read = Vec::with_capacity(512);
    let mut chunk = [0u8; 2048];
    loop {
        match judge_opening(&read) {
            Opening::Whole(transport) => return Ok(Some((transport, read))),
            Opening::Bad => return Ok(None),
            Opening::Partial => {}
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        read.extend_from_slice(&chunk[..n]);
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Opening {
    Whole(Transport),
    Partial,
    Bad,
}

fn judge_opening(read: &[u8]) -> Opening {
    if read.len() > MAX_OPENING {
        return Opening::Bad;
    }
    let n = read.len().min(HTTP2_PREFACE.len());
    if read[..n] == HTTP2_PREFACE[..n] {
        // The preface, then a frame: a 9-byte header (its length in the first 3 bytes).
        let Some(header) = read.get(HTTP2_PREFACE.len()..HTTP2_PREFACE.len() + 9) else {
            return Opening::Partial;
        };
        let length = (usize::from(header[0]) << 16) | (usize::from(header[1]) << 8) | usize::from(header[2]);
        return if read.len() >= HTTP2_PREFACE.len() + 9 + length {
            Opening::Whole(Transport::Http2)
        } else if HTTP2_PREFACE.len() + 9 + length > MAX_OPENING {
            Opening::Bad
        } else {
            Opening::Partial
        };
    }
    if read.len() < 3 && b"PRI".starts_with(read) {
        return Opening::Partial;
    }
    match read.windows(4).position(|w| w == b"\r\n\r\n") {
        // A head is a request line ("POST /path HTTP/1.1") and headers: four bytes of line
        // ends alone are not one, and would otherwise be charged as an HTTP/1.1 connection.
        Some(_) if request_line(read) => Opening::Whole(Transport::Http1),
        Some(_) => Opening::Bad,
        None => Opening::Partial,
    }
}

/// Whether `read` starts with an HTTP/1 request line: a method, a target, the version.
fn request_line(read: &[u8]) -> bool {
    let line = read.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut parts = line.split(|&b| b == b' ');
    let method = parts.next().is_some_and(|m| !m.is_empty() && m.iter().all(u8::is_ascii_uppercase));
    let target = parts.next().is_some_and(|t| !t.is_empty());
    let version = parts.next().is_some_and(|v| v.starts_with(b"HTTP/1."));
    method && target && version && parts.next().is_none()
}

/// An opening read to judge it, given to the transport first.
pub(crate) struct Replay {
    opening: Vec<u8>,
    /// How much of `opening` the transport has read.
    read: usize,
}

impl Replay {
    pub(crate) fn new(opening: Vec<u8>) -> Replay {
        Replay { opening, read: 0 }
    }

    /// Puts what is left of the opening into `buf`; false once it has all been read.
    pub(crate) fn replay(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        if self.read >= self.opening.len() {
            return false;
        }
        let rest = &self.opening[self.read..];
        let n = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..n]);
        self.read += n;
        if self.read == self.opening.len() {
            *self = Replay::new(Vec::new());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_is_whole_with_http2s_first_frame_or_http1s_head() {
        let mut h2 = HTTP2_PREFACE.to_vec();
        assert_eq!(judge_opening(&h2[..3]), Opening::Partial);
        assert_eq!(judge_opening(&h2), Opening::Partial, "the preface alone");
        // A SETTINGS frame with one setting (6 bytes).
        h2.extend_from_slice(&[0, 0, 6, 4, 0, 0, 0, 0, 0]);
        assert_eq!(judge_opening(&h2), Opening::Partial, "the frame's header alone");
        h2.extend_from_slice(&[0, 3, 0, 0, 0, 100]);
        assert_eq!(judge_opening(&h2), Opening::Whole(Transport::Http2));
        assert_eq!(judge_opening(b"PRI * HTTP/1.1\r\n\r\n"), Opening::Whole(Transport::Http1));
        assert_eq!(judge_opening(b"G"), Opening::Partial);
        assert_eq!(
            judge_opening(b"POST /dudo.v1.Lobby/ListTables HTTP/1.1\r\nhost: x\r\n"),
            Opening::Partial
        );
        assert_eq!(
            judge_opening(b"POST /dudo.v1.Lobby/ListTables HTTP/1.1\r\nhost: x\r\n\r\n"),
            Opening::Whole(Transport::Http1)
        );
        assert_eq!(judge_opening(&vec![b'x'; MAX_OPENING + 1]), Opening::Bad);
        // From the hostile try: line ends alone are no request.
        assert_eq!(judge_opening(b"\r\n\r\n"), Opening::Bad);
        assert_eq!(judge_opening(b"GET\r\n\r\n"), Opening::Bad);
        let mut huge = HTTP2_PREFACE.to_vec();
        huge.extend_from_slice(&[0, 0x40, 0, 4, 0, 0, 0, 0, 0]);
        assert_eq!(judge_opening(&huge), Opening::Bad, "a first frame larger than an opening may be");
    }
}
