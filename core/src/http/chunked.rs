//! The chunked transfer coding of request bodies (RFC 9112 §7.1), decoded incrementally
//! without IO: a state machine over bytes, fed whatever has arrived, that appends the chunk
//! data to the body and stops at the end of the message, before any pipelined request.
//!
//! ```text
//! chunked-body = *chunk last-chunk trailer-section CRLF
//! chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//! last-chunk   = 1*("0") [ chunk-ext ] CRLF
//! ```
//!
//! Bounded: the decoded body at most [`MAX_BODY_BYTES`] (beyond: [`ChunkError::TooLarge`], 413,
//! found from a chunk's size before its data is read); a chunk size at most
//! [`MAX_SIZE_DIGITS`] hex digits; a size line (with its extensions) at most
//! [`MAX_SIZE_LINE_BYTES`]; and everything that is not data (size lines, extensions, the
//! trailer section) at most [`MAX_FRAMING_BYTES`] in all (beyond: 413). Chunk extensions are
//! ignored (§7.1.1); trailer fields are read and dropped (§7.1.2). Lines end in CRLF; a bare
//! CR or LF is malformed.

use super::request::{MAX_BODY_BYTES, MAX_HEAD_BYTES};

/// Most hex digits of a chunk size (leading zeros included): 8, a size far past
/// [`MAX_BODY_BYTES`]; more is malformed (400).
pub const MAX_SIZE_DIGITS: u32 = 8;
/// Longest size line, extensions included, without its CRLF, in bytes (over it: 400).
pub const MAX_SIZE_LINE_BYTES: usize = 1024;
/// Most bytes of one chunked body that are not chunk data: size lines with their extensions
/// and CRLFs, the CRLFs after the data, the trailer section (the head limit, 32 KiB; over
/// it: 413).
pub const MAX_FRAMING_BYTES: usize = MAX_HEAD_BYTES;

/// Why a chunked body was refused; [`ChunkError::status`] is the response status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkError {
    /// Decoded data over [`MAX_BODY_BYTES`], or framing over [`MAX_FRAMING_BYTES`]: 413.
    TooLarge,
    /// Not the chunked coding's syntax: 400.
    Malformed(&'static str),
}

impl ChunkError {
    /// The HTTP status to answer with.
    pub fn status(&self) -> u16 {
        match self {
            Self::TooLarge => 413,
            Self::Malformed(_) => 400,
        }
    }
}

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge => write!(f, "request body is larger than {MAX_BODY_BYTES} bytes"),
            Self::Malformed(detail) => write!(f, "malformed chunked body: {detail}"),
        }
    }
}

impl std::error::Error for ChunkError {}

/// Where the decoder is in the chunked body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Reading a chunk size's hex digits (`digits` so far, `value` so far).
    Size { value: usize, digits: u32 },
    /// After the size: optional white space, then `;` and extensions, up to the CR.
    Extension { size: usize, semicolon: bool },
    /// The size line's CR was read; its LF comes next.
    SizeLf { size: usize },
    /// Reading `remaining` bytes of chunk data.
    Data { remaining: usize },
    /// The CR after a chunk's data.
    DataCr,
    /// The LF after a chunk's data.
    DataLf,
    /// At the start of a trailer field line, or of the empty line that ends the body.
    TrailerStart,
    /// Inside a trailer field line, up to its CR.
    TrailerLine,
    /// A trailer field line's CR was read; its LF comes next.
    TrailerLf,
    /// The final empty line's CR was read; its LF ends the body.
    FinalLf,
    /// The body is complete.
    Done,
}

/// An incremental decoder of one chunked body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkedDecoder {
    step: Step,
    /// Decoded data bytes so far.
    decoded: usize,
    /// Framing bytes (everything but data) so far.
    framing: usize,
    /// Bytes of the current size line so far.
    line: usize,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkedDecoder {
    /// A decoder at the start of a chunked body.
    pub fn new() -> ChunkedDecoder {
        ChunkedDecoder {
            step: Step::Size {
                value: 0,
                digits: 0,
            },
            decoded: 0,
            framing: 0,
            line: 0,
        }
    }

    /// Whether the whole body (last chunk, trailers, final CRLF) has been read.
    pub fn is_done(&self) -> bool {
        self.step == Step::Done
    }

    /// Decoded data bytes so far.
    pub fn decoded(&self) -> usize {
        self.decoded
    }

    /// Decodes from `input`, appending chunk data to `body`; returns how many bytes of `input`
    /// it consumed. It consumes all of `input` until the body ends, then nothing more: what
    /// follows (a pipelined request) stays for the caller. Incomplete input is not an error.
    ///
    /// # Errors
    /// [`ChunkError`] as soon as the bytes cannot become an acceptable chunked body; the
    /// decoder is then unusable (the connection must close).
    pub fn decode(&mut self, input: &[u8], body: &mut Vec<u8>) -> Result<usize, ChunkError> {
        let mut at = 0;
        while at < input.len() {
            if let Step::Data { remaining } = self.step {
                let take = remaining.min(input.len() - at);
                body.extend_from_slice(&input[at..at + take]);
                self.decoded += take;
                at += take;
                self.step = if take == remaining {
                    Step::DataCr
                } else {
                    Step::Data {
                        remaining: remaining - take,
                    }
                };
                continue;
            }
            if self.step == Step::Done {
                break;
            }
            self.framing += 1;
            if self.framing > MAX_FRAMING_BYTES {
                return Err(ChunkError::TooLarge);
            }
            self.step(input[at])?;
            at += 1;
        }
        Ok(at)
    }

    /// One framing byte.
    fn step(&mut self, byte: u8) -> Result<(), ChunkError> {
        use ChunkError::Malformed;
        self.step = match self.step {
            Step::Size { value, digits } => {
                self.line += 1;
                if let Some(digit) = hex_value(byte) {
                    if digits == MAX_SIZE_DIGITS {
                        return Err(Malformed("chunk size has more than 8 hex digits"));
                    }
                    // `value` is at most MAX_BODY_BYTES here: no overflow.
                    let value = value * 16 + digit;
                    if value > MAX_BODY_BYTES - self.decoded {
                        return Err(ChunkError::TooLarge);
                    }
                    Step::Size {
                        value,
                        digits: digits + 1,
                    }
                } else if digits == 0 {
                    return Err(Malformed("chunk size is not hex digits"));
                } else {
                    return self.size_line_byte(value, false, byte);
                }
            }
            Step::Extension { size, semicolon } => {
                self.line += 1;
                return self.size_line_byte(size, semicolon, byte);
            }
            Step::SizeLf { size } => {
                if byte != b'\n' {
                    return Err(Malformed("chunk size line without CRLF"));
                }
                self.line = 0;
                if size == 0 {
                    Step::TrailerStart
                } else {
                    Step::Data { remaining: size }
                }
            }
            Step::DataCr if byte == b'\r' => Step::DataLf,
            Step::DataLf if byte == b'\n' => Step::Size {
                value: 0,
                digits: 0,
            },
            Step::DataCr | Step::DataLf => {
                return Err(Malformed("chunk data not followed by CRLF"));
            }
            Step::TrailerStart => match byte {
                b'\r' => Step::FinalLf,
                b' ' | b'\t' => return Err(Malformed("obsolete line folding in trailers")),
                byte if is_field_byte(byte) => Step::TrailerLine,
                _ => return Err(Malformed("invalid trailer field")),
            },
            Step::TrailerLine => match byte {
                b'\r' => Step::TrailerLf,
                byte if is_field_byte(byte) || byte == b' ' || byte == b'\t' => Step::TrailerLine,
                _ => return Err(Malformed("invalid trailer field")),
            },
            Step::TrailerLf if byte == b'\n' => Step::TrailerStart,
            Step::FinalLf if byte == b'\n' => Step::Done,
            Step::TrailerLf | Step::FinalLf => {
                return Err(Malformed("trailer line without CRLF"));
            }
            // `decode` handles data and stops when done.
            Step::Data { .. } | Step::Done => self.step,
        };
        Ok(())
    }

    /// A byte of a size line after its digits: white space (BWS), `;` and extensions (visible
    /// characters, ignored), or the CR that ends the line.
    fn size_line_byte(&mut self, size: usize, semicolon: bool, byte: u8) -> Result<(), ChunkError> {
        use ChunkError::Malformed;
        if self.line > MAX_SIZE_LINE_BYTES {
            return Err(Malformed("chunk size line is longer than 1024 bytes"));
        }
        self.step = match byte {
            b'\r' => Step::SizeLf { size },
            b';' => Step::Extension {
                size,
                semicolon: true,
            },
            b' ' | b'\t' => Step::Extension { size, semicolon },
            byte if semicolon && is_field_byte(byte) => Step::Extension { size, semicolon },
            _ => return Err(Malformed("invalid chunk size line")),
        };
        Ok(())
    }
}

/// The value of one hex digit.
fn hex_value(byte: u8) -> Option<usize> {
    match byte {
        b'0'..=b'9' => Some(usize::from(byte - b'0')),
        b'a'..=b'f' => Some(usize::from(byte - b'a' + 10)),
        b'A'..=b'F' => Some(usize::from(byte - b'A' + 10)),
        _ => None,
    }
}

/// A visible character or obs-text (RFC 9110 §5.5): what field lines and extensions hold
/// besides white space.
fn is_field_byte(byte: u8) -> bool {
    byte.is_ascii_graphic() || byte >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Decodes `wire` fed in the pieces that `cuts` (offsets) make; the body and the bytes
    /// consumed, or the first error.
    fn decode_in_pieces(wire: &[u8], cuts: &[usize]) -> Result<(Vec<u8>, usize, bool), ChunkError> {
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (wire.len() + 1)).collect();
        points.push(wire.len());
        points.sort_unstable();
        let mut decoder = ChunkedDecoder::new();
        let mut body = Vec::new();
        // Like the exchange: unconsumed bytes stay and are offered again with the next piece.
        let mut consumed = 0;
        for point in points {
            consumed += decoder.decode(&wire[consumed..point], &mut body)?;
        }
        Ok((body, consumed, decoder.is_done()))
    }

    fn whole(wire: &[u8]) -> Result<(Vec<u8>, usize, bool), ChunkError> {
        decode_in_pieces(wire, &[])
    }

    #[test]
    fn decodes_chunks_extensions_and_trailers() {
        let wire = b"5\r\nhello\r\n7;name=value; other\r\n, world\r\n0\r\n\r\nGET / HTTP/1.1\r\n";
        let (body, used, done) = whole(wire).unwrap();
        assert_eq!(body, b"hello, world");
        assert!(done);
        assert_eq!(&wire[used..], b"GET / HTTP/1.1\r\n");
        let wire = b"A \t;x\r\n0123456789\r\n000;last\r\nExpires: never\r\nX-Sum: 1\r\n\r\n";
        let (body, used, done) = whole(wire).unwrap();
        assert_eq!(
            (body.as_slice(), used, done),
            (&b"0123456789"[..], wire.len(), true)
        );
        assert_eq!(whole(b"0\r\n\r\n").unwrap(), (Vec::new(), 5, true));
    }

    #[test]
    fn incomplete_input_waits() {
        for wire in [
            &b""[..],
            b"5",
            b"5\r",
            b"5\r\nhel",
            b"5\r\nhello\r\n0\r\n",
            b"0\r\nX: y\r\n",
        ] {
            let (_, used, done) = whole(wire).unwrap();
            assert_eq!(
                (used, done),
                (wire.len(), false),
                "{:?}",
                String::from_utf8_lossy(wire)
            );
        }
    }

    #[test]
    fn malformed_and_too_large() {
        for (wire, want) in [
            (&b"\r\n"[..], 400),
            (b"x\r\n", 400),
            (b"-1\r\n", 400),
            (b"+5\r\nhello\r\n0\r\n\r\n", 400),
            (b"0x5\r\nhello\r\n0\r\n\r\n", 400),
            (b"5 5\r\n", 400),
            (b"5\nhello\r\n0\r\n\r\n", 400),
            (b"5\r\nhelloX\r\n", 400),
            (b"5\r\nhello\n0\r\n\r\n", 400),
            (b"0\r\n\n", 400),
            (b"0\r\nX: y\n\r\n", 400),
            (b"0\r\n folded\r\n\r\n", 400),
            (b"0\r\nX: \x01\r\n\r\n", 400),
            (b"5;\x00\r\n", 400),
            (b"000000005\r\nhello\r\n", 400),
            (b"4001\r\n", 413),
            (b"ffffffffffffffffffffffff\r\n", 413),
            (b"00004000\r\n", 200),
        ] {
            let got = whole(wire);
            let status = got.as_ref().err().map_or(200, ChunkError::status);
            assert_eq!(status, want, "{:?}: {got:?}", String::from_utf8_lossy(wire));
        }
        let mut long = b"1;".to_vec();
        long.resize(MAX_SIZE_LINE_BYTES + 10, b'a');
        assert_eq!(whole(&long).unwrap_err().status(), 400);
        // Many small chunks with extensions: the framing budget ends it.
        let many = b"1;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\nx\r\n"
            .repeat(1000);
        assert_eq!(whole(&many), Err(ChunkError::TooLarge));
        // A trailer section over the budget.
        let mut trailers = b"0\r\n".to_vec();
        trailers.extend(b"X-Trailer: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n".repeat(1000));
        assert_eq!(whole(&trailers), Err(ChunkError::TooLarge));
    }

    /// A body, its chunk sizes, an extension per chunk, trailers: the wire bytes.
    fn encode(body: &[u8], sizes: &[usize], extensions: &[bool], trailers: &[String]) -> Vec<u8> {
        let mut wire = Vec::new();
        let mut rest = body;
        let mut i = 0;
        while !rest.is_empty() {
            let size = sizes
                .get(i)
                .copied()
                .unwrap_or(rest.len())
                .clamp(1, rest.len());
            let ext = if extensions.get(i).copied().unwrap_or(false) {
                ";ext=\"v\" ;x"
            } else {
                ""
            };
            // Upper- and lower-case hex in turn.
            let size_text = if i % 2 == 0 {
                format!("{size:x}")
            } else {
                format!("{size:X}")
            };
            wire.extend_from_slice(format!("{size_text}{ext}\r\n").as_bytes());
            wire.extend_from_slice(&rest[..size]);
            wire.extend_from_slice(b"\r\n");
            rest = &rest[size..];
            i += 1;
        }
        wire.extend_from_slice(b"0\r\n");
        for trailer in trailers {
            wire.extend_from_slice(format!("{trailer}\r\n").as_bytes());
        }
        wire.extend_from_slice(b"\r\n");
        wire
    }

    proptest! {
        #[test]
        fn any_chunking_fed_in_any_pieces_decodes_to_the_body(
            body in prop::collection::vec(any::<u8>(), 0..2048),
            sizes in prop::collection::vec(1usize..600, 0..12),
            extensions in prop::collection::vec(any::<bool>(), 0..12),
            trailers in prop::collection::vec("[A-Za-z-]{1,12}: [ -~]{0,20}", 0..3),
            cuts in prop::collection::vec(any::<usize>(), 0..8),
            next in prop::sample::select(vec![&b""[..], b"GET / HTTP/1.1\r\n\r\n", b"0\r\n\r\n"]),
        ) {
            let mut wire = encode(&body, &sizes, &extensions, &trailers);
            let end = wire.len();
            wire.extend_from_slice(next);
            let (decoded, used, done) = decode_in_pieces(&wire, &cuts).unwrap();
            prop_assert_eq!(decoded, body);
            prop_assert!(done);
            prop_assert_eq!(used, end);
        }

        #[test]
        fn over_the_limit_is_413_however_it_is_chunked(
            extra in 1usize..2048,
            sizes in prop::collection::vec(1usize..8192, 0..8),
            cuts in prop::collection::vec(any::<usize>(), 0..8),
        ) {
            let body = vec![b'a'; MAX_BODY_BYTES + extra];
            let wire = encode(&body, &sizes, &[], &[]);
            prop_assert_eq!(decode_in_pieces(&wire, &cuts), Err(ChunkError::TooLarge));
        }

        #[test]
        fn a_corrupted_byte_gets_the_same_answer_however_it_arrives(
            body in prop::collection::vec(any::<u8>(), 1..256),
            sizes in prop::collection::vec(1usize..64, 0..6),
            at in any::<usize>(),
            byte in any::<u8>(),
            cuts in prop::collection::vec(any::<usize>(), 0..4),
        ) {
            // Replacing one framing byte: the decoder refuses (400), waits for more, or — when
            // the replacement is still valid framing — decodes; fed in pieces, the same answer.
            let wire = encode(&body, &sizes, &[], &[]);
            let mut bad = wire.clone();
            let at = at % bad.len();
            bad[at] = byte;
            let once = whole(&bad);
            let pieces = decode_in_pieces(&bad, &cuts);
            prop_assert_eq!(&once, &pieces);
            if let Err(error) = once {
                prop_assert!(matches!(error.status(), 400 | 413));
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_split_reads_agree(
            data in prop::collection::vec(any::<u8>(), 0..512),
            cuts in prop::collection::vec(any::<usize>(), 0..6),
        ) {
            let once = whole(&data);
            prop_assert_eq!(&once, &decode_in_pieces(&data, &cuts));
            if let Ok((body, used, _)) = once {
                prop_assert!(used <= data.len() && body.len() <= MAX_BODY_BYTES);
            }
        }
    }
}
