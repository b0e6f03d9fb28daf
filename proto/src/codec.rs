//! The codec the generated services use: prost's, except that a message that does not decode
//! is the sender's error (INVALID_ARGUMENT, naming the problem), not the receiver's (tonic's
//! codec says INTERNAL), and whose buffers start small (see `buffers`).

use std::marker::PhantomData;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstDecoder, ProstEncoder};

/// Each call's encode and decode buffers start at 1 KiB, not tonic's 8 KiB: a stream keeps
/// its buffers while it is open, and an idle seat's stream is most of what a seat costs
/// (BENCHMARKS.md, idle seats). Nearly every message is smaller; a larger one grows the buffer
/// as it must. The yield threshold (how much a stream encodes before handing it on) stays
/// tonic's 32 KiB.
fn buffers() -> BufferSettings {
    BufferSettings::new(1024, 32 * 1024)
}

#[derive(Debug, Clone)]
pub struct DudoCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for DudoCodec<T, U> {
    fn default() -> Self {
        DudoCodec(PhantomData)
    }
}

impl<T, U> Codec for DudoCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = DudoDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(buffers())
    }

    fn decoder(&mut self) -> Self::Decoder {
        DudoDecoder(ProstDecoder::new(buffers()))
    }
}

#[derive(Debug, Clone, Default)]
pub struct DudoDecoder<U>(ProstDecoder<U>);

impl<U: prost::Message + Default> Decoder for DudoDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| {
            let why: String = status.message().chars().take(200).collect();
            Status::invalid_argument(format!("request: a message could not be decoded: {why}"))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
