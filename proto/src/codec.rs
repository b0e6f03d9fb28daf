//! The codec the generated services use: prost's, except that a message that does not decode
//! is the sender's error (INVALID_ARGUMENT, naming the problem), not the receiver's (tonic's
//! codec says INTERNAL).

use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

#[derive(Debug, Clone)]
pub struct DudoCodec<T, U>(ProstCodec<T, U>);

impl<T, U> Default for DudoCodec<T, U> {
    fn default() -> Self {
        DudoCodec(ProstCodec::default())
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
        self.0.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        DudoDecoder(self.0.decoder())
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
