//! Content decoding (`gzip`, `deflate`, `br`, `identity`) with the size cap counted after
//! decompression: decoding stops one byte past the cap, so a decompression bomb costs at most
//! the cap in memory (docs/contract.md "Fetching").

use std::io::Read;

use crate::fetch::FetchError;

/// Most encodings applied in one `Content-Encoding` list.
const MAX_ENCODINGS: usize = 2;

/// Decodes `body` per the `Content-Encoding` value, refusing output over `cap` bytes.
///
/// # Errors
/// [`FetchError::TooLarge`] past the cap; [`FetchError::BadEncoding`] for an unknown encoding or
/// corrupt data.
pub fn decode_body(
    content_encoding: Option<&str>,
    body: Vec<u8>,
    cap: usize,
) -> Result<Vec<u8>, FetchError> {
    let encodings: Vec<String> = content_encoding
        .unwrap_or("")
        .split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity")
        .collect();
    if encodings.len() > MAX_ENCODINGS {
        return Err(FetchError::BadEncoding(
            "too many content encodings".to_string(),
        ));
    }
    let mut data = body;
    // Encodings are listed in the order they were applied; undo them in reverse.
    for encoding in encodings.iter().rev() {
        data = match encoding.as_str() {
            "gzip" | "x-gzip" => read_capped(flate2::read::GzDecoder::new(&data[..]), cap)?,
            "deflate" => match read_capped(flate2::read::ZlibDecoder::new(&data[..]), cap) {
                // Some servers send raw DEFLATE under this name.
                Err(FetchError::BadEncoding(_)) => {
                    read_capped(flate2::read::DeflateDecoder::new(&data[..]), cap)?
                }
                other => other?,
            },
            "br" => read_capped(brotli_decompressor::Decompressor::new(&data[..], 4096), cap)?,
            other => {
                return Err(FetchError::BadEncoding(format!(
                    "unsupported content encoding {other:?}"
                )))
            }
        };
    }
    if data.len() > cap {
        return Err(FetchError::TooLarge);
    }
    Ok(data)
}

fn read_capped(reader: impl Read, cap: usize) -> Result<Vec<u8>, FetchError> {
    let mut out = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| FetchError::BadEncoding(e.to_string()))?;
    if out.len() > cap {
        return Err(FetchError::TooLarge);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn decodes_each_encoding() {
        let page = b"<html><p>info@acme.nl</p></html>".repeat(10);
        assert_eq!(decode_body(None, page.clone(), 1 << 20).unwrap(), page);
        assert_eq!(
            decode_body(Some("identity"), page.clone(), 1 << 20).unwrap(),
            page
        );
        assert_eq!(
            decode_body(Some("gzip"), gzip(&page), 1 << 20).unwrap(),
            page
        );
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(&page).unwrap();
        assert_eq!(
            decode_body(Some("deflate"), zlib.finish().unwrap(), 1 << 20).unwrap(),
            page
        );
        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&page).unwrap();
        assert_eq!(
            decode_body(Some("Deflate"), raw.finish().unwrap(), 1 << 20).unwrap(),
            page
        );
        // A brotli stream of "hello" (quality 5), made with the reference encoder.
        let br = [0x0b, 0x02, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x03];
        assert_eq!(
            decode_body(Some("br"), br.to_vec(), 1 << 20).unwrap(),
            b"hello"
        );
        assert_eq!(
            decode_body(Some("gzip, gzip"), gzip(&gzip(&page)), 1 << 20).unwrap(),
            page
        );
    }

    #[test]
    fn decompression_bomb_stops_at_the_cap() {
        let bomb = gzip(&vec![0u8; 50 * 1024 * 1024]);
        assert!(
            bomb.len() < 100 * 1024,
            "50 MiB of zeros compress to {} bytes",
            bomb.len()
        );
        assert_eq!(
            decode_body(Some("gzip"), bomb, 2 * 1024 * 1024),
            Err(FetchError::TooLarge)
        );
        assert_eq!(
            decode_body(None, vec![1; 11], 10),
            Err(FetchError::TooLarge)
        );
        // 3 MiB of "a" in 14 bytes of brotli (made with the reference encoder, quality 5).
        let br_bomb = [
            0x9b, 0xff, 0xff, 0x2f, 0x00, 0x24, 0xc2, 0xe2, 0xb1, 0x40, 0x72, 0xef, 0x5f, 0x00,
        ];
        assert_eq!(
            decode_body(Some("br"), br_bomb.to_vec(), 2 * 1024 * 1024),
            Err(FetchError::TooLarge)
        );
        assert_eq!(
            decode_body(Some("br"), br_bomb.to_vec(), 4 * 1024 * 1024).map(|b| b.len()),
            Ok(3 * 1024 * 1024)
        );
    }

    #[test]
    fn refuses_unknown_and_corrupt() {
        assert!(matches!(
            decode_body(Some("compress"), vec![1, 2], 100),
            Err(FetchError::BadEncoding(_))
        ));
        assert!(matches!(
            decode_body(Some("gzip"), b"not gzip".to_vec(), 100),
            Err(FetchError::BadEncoding(_))
        ));
        assert!(matches!(
            decode_body(Some("gzip, br, deflate"), vec![], 100),
            Err(FetchError::BadEncoding(_))
        ));
    }
}
