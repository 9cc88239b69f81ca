//! The duration a media file declares in its first bytes, read while a media URL is still
//! downloading, so a source over the cap is refused before the rest is fetched.
//!
//! Two families state their length up front: WAV (`fmt ` byte rate and the `data` chunk's size)
//! and ISO-BMFF — MP4, MOV, M4A — when the `moov` box comes first ("fast start": `mvhd`'s
//! timescale and duration). For anything else the download runs to its end and GStreamer's
//! probe decides, as before.

/// What the bytes so far tell about the length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Declared {
    /// The header states this many seconds.
    Seconds(f64),
    /// The header needs more bytes before it can be read.
    NotYet,
    /// This format does not state its length up front (or the `moov` box comes last).
    Unknown,
}

/// Reads the declared duration from the start of a file.
pub fn duration(head: &[u8]) -> Declared {
    if head.len() < 12 {
        return Declared::NotYet;
    }
    if &head[0..4] == b"RIFF" && &head[8..12] == b"WAVE" {
        return wav(head);
    }
    if &head[4..8] == b"ftyp" {
        return iso_bmff(head);
    }
    Declared::Unknown
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u32_be(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_be(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// WAV: walk the chunks after `WAVE`; the `fmt ` chunk gives the byte rate, the `data` chunk's
/// header its size.
fn wav(head: &[u8]) -> Declared {
    let mut at = 12usize;
    let mut byte_rate = None;
    loop {
        let (Some(id), Some(size)) = (head.get(at..at + 4), u32_le(head, at + 4)) else {
            return Declared::NotYet;
        };
        match id {
            b"fmt " => match u32_le(head, at + 16) {
                Some(rate) => byte_rate = Some(rate),
                None => return Declared::NotYet,
            },
            // A streamed WAV writes 0 or u32::MAX as the size: no stated length.
            b"data" => {
                return match byte_rate {
                    Some(rate) if rate > 0 && size != 0 && size != u32::MAX => {
                        Declared::Seconds(f64::from(size) / f64::from(rate))
                    }
                    _ => Declared::Unknown,
                };
            }
            _ => {}
        }
        at += 8 + size as usize + (size as usize & 1);
    }
}

/// ISO-BMFF: the top-level boxes in order; `moov` before `mdat` holds `mvhd`.
fn iso_bmff(head: &[u8]) -> Declared {
    let mut at = 0usize;
    loop {
        let Some((kind, start, end)) = bmff_box(head, at) else {
            return Declared::NotYet;
        };
        match kind {
            b"moov" => return mvhd_in(head, start, end),
            // The media data comes first: the header is at the end of the file.
            b"mdat" => return Declared::Unknown,
            _ => at = end,
        }
    }
}

/// A box at `at`: its type, where its payload starts and where it ends (which may lie beyond
/// the bytes so far).
fn bmff_box(b: &[u8], at: usize) -> Option<(&[u8], usize, usize)> {
    let size = u32_be(b, at)? as usize;
    let kind = b.get(at + 4..at + 8)?;
    let (start, size) = match size {
        1 => (at + 16, u64_be(b, at + 8)? as usize),
        // To the end of the file: only the last box does that.
        0 => (at + 8, usize::MAX - at),
        n => (at + 8, n),
    };
    (size >= 8).then_some((kind, start, at.saturating_add(size)))
}

/// `mvhd` inside a `moov` whose payload is `start..end`.
fn mvhd_in(b: &[u8], start: usize, end: usize) -> Declared {
    let mut at = start;
    while at < end {
        let Some((kind, payload, next)) = bmff_box(b, at) else {
            return Declared::NotYet;
        };
        if kind == b"mvhd" {
            let version = match b.get(payload) {
                Some(v) => *v,
                None => return Declared::NotYet,
            };
            // version 0: 4-byte times, version 1: 8-byte times, after version and flags.
            let read = if version == 1 {
                u32_be(b, payload + 20).zip(u64_be(b, payload + 24))
            } else {
                u32_be(b, payload + 12).zip(u32_be(b, payload + 16).map(u64::from))
            };
            return match read {
                Some((scale, duration)) if scale > 0 => {
                    Declared::Seconds(duration as f64 / f64::from(scale))
                }
                Some(_) => Declared::Unknown,
                None => Declared::NotYet,
            };
        }
        at = next;
    }
    Declared::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav_header(seconds: u32, rate: u32) -> Vec<u8> {
        let data = seconds * rate * 2;
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&(36 + data).to_le_bytes());
        out.extend_from_slice(b"WAVEfmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&rate.to_le_bytes());
        out.extend_from_slice(&(rate * 2).to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(b"data");
        out.extend_from_slice(&data.to_le_bytes());
        out
    }

    fn bmff(kind: &[u8], payload: &[u8]) -> Vec<u8> {
        let mut out = ((payload.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(payload);
        out
    }

    fn mvhd_v0(scale: u32, duration: u32) -> Vec<u8> {
        let mut p = vec![0u8; 4 + 8];
        p.extend_from_slice(&scale.to_be_bytes());
        p.extend_from_slice(&duration.to_be_bytes());
        p.extend_from_slice(&[0u8; 80]);
        bmff(b"mvhd", &p)
    }

    #[test]
    fn a_wav_states_its_length_in_its_first_44_bytes() {
        let h = wav_header(400, 8000);
        assert_eq!(duration(&h), Declared::Seconds(400.0));
        assert_eq!(duration(&h[..30]), Declared::NotYet);
    }

    #[test]
    fn a_fast_start_mp4_states_it_in_mvhd_and_one_with_mdat_first_does_not() {
        let ftyp = bmff(b"ftyp", b"isomisom");
        let moov = bmff(b"moov", &mvhd_v0(1000, 360_000));
        let fast = [ftyp.clone(), moov.clone(), bmff(b"mdat", &[0; 64])].concat();
        assert_eq!(duration(&fast), Declared::Seconds(360.0));
        assert_eq!(duration(&fast[..ftyp.len() + 20]), Declared::NotYet);
        let slow = [ftyp, bmff(b"mdat", &[0; 64]), moov].concat();
        assert_eq!(duration(&slow), Declared::Unknown);
    }

    #[test]
    fn other_formats_and_streamed_wavs_do_not_say() {
        assert_eq!(duration(b"ID3\x04\0\0\0\0\0\0\0\0\0\0"), Declared::Unknown);
        let mut streamed = wav_header(1, 8000);
        let n = streamed.len();
        streamed[n - 4..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(duration(&streamed), Declared::Unknown);
    }
}
