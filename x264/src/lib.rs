//! libx264, driven directly: I420 frames in, H.264 access units out (AVC: each NAL unit
//! behind a 4-byte length), with their timestamps.
//!
//! The compositor used to hand its frames to GStreamer's `x264enc`, which keeps every input
//! frame mapped until that frame's encoded output comes out — about 24 frames (33 MB at
//! 720×1280) held while x264 works on its own copies. Here a frame is the caller's again as
//! soon as [`Encoder::encode`] returns: x264 copies the picture before it plans or encodes it.
//!
//! The parameters are the ones `x264enc` set for the product format (see `src/shim.c`), so the
//! bitstream is the one it wrote. `src/shim.c` is the C side and this file the only `unsafe`
//! of the encoder: everything handed to C is checked here first.

use std::ffi::{CStr, CString, c_char, c_int};
use std::ptr::NonNull;

/// What an encoder is opened with.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings<'a> {
    /// Frame width in pixels (even).
    pub width: u32,
    /// Frame height in pixels (even).
    pub height: u32,
    /// Frames per second (constant frame rate).
    pub fps: u32,
    /// x264's speed preset (`veryfast`, …).
    pub preset: &'a str,
    /// Constant rate factor.
    pub crf: f32,
    /// VBV peak bitrate in kbit/s.
    pub vbv_max_kbps: u32,
    /// VBV buffer in kbit.
    pub vbv_buffer_kbit: u32,
    /// Most frames between keyframes.
    pub keyint: u32,
    /// Frame threads (they change the bitstream).
    pub threads: u32,
    /// Frames of threaded lookahead; -1 lets x264 choose, 0 plans in the encoding thread.
    pub sync_lookahead: i32,
    /// x264's `asm` option (an instruction set to hold it to), or `None` to let it choose.
    pub asm: Option<&'a str>,
}

/// Why x264 could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The settings or a picture do not fit; the text says which.
    #[error("invalid x264 input: {0}")]
    Invalid(String),
    /// x264 itself failed.
    #[error("x264 failed: {0}")]
    Failed(String),
}

/// One I420 picture: three planes and their row strides, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Picture<'a> {
    /// Y, U and V.
    pub planes: [&'a [u8]; 3],
    /// Bytes per row of each plane.
    pub strides: [usize; 3],
    /// Whether x264 must make this picture an IDR frame: a stream that goes on across it
    /// then falls into parts that each decode alone (x264's GOPs are closed, so no frame
    /// after it refers to one before it, and every frame shown before it is coded before it).
    pub idr: bool,
}

/// One encoded frame, borrowed from the encoder until its next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// The access unit: NAL units, each behind its 4-byte big-endian length.
    pub data: &'a [u8],
    /// Presentation time, in the units of the `pts` it was given with.
    pub pts: i64,
    /// Decoding time, in the same units: below the first `pts` while B-frames are pending.
    pub dts: i64,
    /// An IDR frame, where decoding can start.
    pub keyframe: bool,
}

/// The library's version, e.g. `0.164.3095 baee400` (API build and revision).
pub fn version() -> &'static str {
    // SAFETY: the shim returns a pointer to a static, NUL-terminated string literal.
    let version = unsafe { CStr::from_ptr(ffi::rs_x264_version()) };
    version.to_str().unwrap_or("unknown")
}

/// An open libx264 encoder.
#[derive(Debug)]
pub struct Encoder {
    raw: NonNull<ffi::Shim>,
    width: usize,
    height: usize,
}

// SAFETY: the encoder is only ever used through `&mut self` (or `&self` for reads x264 does
// not synchronise against, which `&mut` excludes meanwhile); x264 has no thread affinity.
unsafe impl Send for Encoder {}

impl Encoder {
    /// Opens an encoder; fails on settings x264 rejects.
    pub fn open(settings: &Settings<'_>) -> Result<Encoder, Error> {
        let even = |n: u32| n > 0 && n.is_multiple_of(2) && n <= 16_384;
        if !even(settings.width) || !even(settings.height) {
            return Err(Error::Invalid(format!(
                "frame size {}x{}: needs an even width and height up to 16384",
                settings.width, settings.height
            )));
        }
        if settings.fps == 0 || settings.threads == 0 || settings.keyint == 0 {
            return Err(Error::Invalid(
                "fps, threads and keyint must be at least 1".into(),
            ));
        }
        let number =
            |n: u32| c_int::try_from(n).map_err(|_| Error::Invalid(format!("{n} is too large")));
        let text =
            |s: &str| CString::new(s).map_err(|_| Error::Invalid(format!("{s:?} holds a NUL")));
        let preset = text(settings.preset)?;
        let asm = settings.asm.map(text).transpose()?;
        let config = ffi::Config {
            width: number(settings.width)?,
            height: number(settings.height)?,
            fps: number(settings.fps)?,
            preset: preset.as_ptr(),
            crf: settings.crf,
            vbv_max_kbps: number(settings.vbv_max_kbps)?,
            vbv_buffer_kbit: number(settings.vbv_buffer_kbit)?,
            keyint: number(settings.keyint)?,
            threads: number(settings.threads)?,
            sync_lookahead: settings.sync_lookahead,
            asm_name: asm.as_ref().map_or(std::ptr::null(), |a| a.as_ptr()),
        };
        let mut message = [0 as c_char; 256];
        // SAFETY: `config` and the strings it points to outlive the call; `message` is as long
        // as we say, and the shim writes a NUL-terminated string into it at most that long.
        let raw = unsafe { ffi::rs_x264_open(&config, message.as_mut_ptr(), message.len()) };
        match NonNull::new(raw) {
            Some(raw) => Ok(Encoder {
                raw,
                width: settings.width as usize,
                height: settings.height as usize,
            }),
            None => {
                // SAFETY: the shim wrote a NUL-terminated message into the zeroed buffer.
                let text = unsafe { CStr::from_ptr(message.as_ptr()) };
                Err(Error::Failed(text.to_string_lossy().into_owned()))
            }
        }
    }

    /// The stream's decoder configuration: an `AVCDecoderConfigurationRecord` (`avcC`, ISO/IEC
    /// 14496-15 §5.3.3) holding its one SPS and one PPS, as MP4 stores it.
    pub fn avc_config(&self) -> Result<Vec<u8>, Error> {
        let (mut sps, mut sps_len) = (std::ptr::null(), 0);
        let (mut pps, mut pps_len) = (std::ptr::null(), 0);
        // SAFETY: the encoder is open; on success the pointers point into x264's header
        // buffer, valid until the next call on this encoder, which `&self` rules out here.
        let (sps, pps) = unsafe {
            if ffi::rs_x264_headers(
                self.raw.as_ptr(),
                &mut sps,
                &mut sps_len,
                &mut pps,
                &mut pps_len,
            ) != 0
            {
                return Err(Error::Failed("no parameter sets".into()));
            }
            (
                std::slice::from_raw_parts(sps, usize::try_from(sps_len).unwrap_or(0)),
                std::slice::from_raw_parts(pps, usize::try_from(pps_len).unwrap_or(0)),
            )
        };
        avc_decoder_config(sps, pps)
    }

    /// Hands x264 one picture with its presentation time; returns the frame that came out, if
    /// one did (x264 holds frames back to plan ahead). The picture may be reused at once.
    pub fn encode(&mut self, picture: Picture<'_>, pts: i64) -> Result<Option<Packet<'_>>, Error> {
        self.check(&picture)?;
        let planes = picture.planes.map(<[u8]>::as_ptr);
        let strides = picture.strides.map(|s| s as c_int);
        let mut packet = ffi::RawPacket::default();
        // SAFETY: `check` proved each plane holds its rows at its stride (so x264 reads
        // inside them), and x264 copies the picture before returning.
        let got = unsafe {
            ffi::rs_x264_encode(
                self.raw.as_ptr(),
                planes.as_ptr(),
                strides.as_ptr(),
                pts,
                c_int::from(picture.idr),
                &mut packet,
            )
        };
        self.packet(got, packet)
    }

    /// Asks for a frame x264 still holds, once every picture was given; `None` when none is
    /// left. x264 may still hold a frame it no longer counts as delayed (a lone frame, say), so
    /// it is asked at least once.
    pub fn flush(&mut self) -> Result<Option<Packet<'_>>, Error> {
        let (got, packet) = loop {
            let mut packet = ffi::RawPacket::default();
            // SAFETY: null planes ask x264 for a delayed frame; nothing is read from us.
            let got = unsafe {
                ffi::rs_x264_encode(
                    self.raw.as_ptr(),
                    std::ptr::null(),
                    std::ptr::null(),
                    0,
                    0,
                    &mut packet,
                )
            };
            if got != 0 || self.delayed_frames() == 0 {
                break (got, packet);
            }
        };
        self.packet(got, packet)
    }

    /// Frames x264 holds that have not come out yet.
    pub fn delayed_frames(&self) -> usize {
        // SAFETY: the encoder is open.
        let n = unsafe { ffi::rs_x264_delayed(self.raw.as_ptr()) };
        usize::try_from(n).unwrap_or(0)
    }

    fn packet(&mut self, got: c_int, packet: ffi::RawPacket) -> Result<Option<Packet<'_>>, Error> {
        match got {
            0 => Ok(None),
            1 if !packet.data.is_null() && packet.size > 0 => Ok(Some(Packet {
                // SAFETY: x264's output buffer, valid until the next call on this encoder,
                // which the borrow of `self` this packet holds rules out.
                data: unsafe { std::slice::from_raw_parts(packet.data, packet.size as usize) },
                pts: packet.pts,
                dts: packet.dts,
                keyframe: packet.keyframe != 0,
            })),
            _ => Err(Error::Failed("encoding a frame".into())),
        }
    }

    /// Every plane holds its rows at its stride, and each stride covers a row.
    fn check(&self, picture: &Picture<'_>) -> Result<(), Error> {
        let rows = [self.height, self.height / 2, self.height / 2];
        let widths = [self.width, self.width / 2, self.width / 2];
        for i in 0..3 {
            let (stride, plane) = (picture.strides[i], picture.planes[i]);
            // An overflow is too short a plane, never a pass (`None` orders below `Some`).
            let needed = stride
                .checked_mul(rows[i] - 1)
                .and_then(|n| n.checked_add(widths[i]));
            let short = needed.is_none_or(|n| n > plane.len());
            if stride < widths[i] || stride > c_int::MAX as usize || short {
                return Err(Error::Invalid(format!(
                    "plane {i}: {} bytes at stride {stride} for {}x{}",
                    plane.len(),
                    widths[i],
                    rows[i]
                )));
            }
        }
        Ok(())
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        // SAFETY: opened by `rs_x264_open` and closed only here.
        unsafe { ffi::rs_x264_close(self.raw.as_ptr()) }
    }
}

/// An `avcC` record for one SPS and one PPS (NAL units without start codes or lengths).
fn avc_decoder_config(sps: &[u8], pps: &[u8]) -> Result<Vec<u8>, Error> {
    let too_long = |what: &str| Error::Failed(format!("{what} of an unusable size"));
    let sps_len = u16::try_from(sps.len()).map_err(|_| too_long("an SPS"))?;
    let pps_len = u16::try_from(pps.len()).map_err(|_| too_long("a PPS"))?;
    if sps.len() < 4 || pps.is_empty() {
        return Err(too_long("a parameter set"));
    }
    let mut record = Vec::with_capacity(11 + sps.len() + pps.len());
    // Version 1, then the SPS's profile_idc, constraint flags and level_idc (its bytes 1–3,
    // after the NAL header); lengths of 4 bytes (0b11 under six reserved 1 bits).
    record.extend_from_slice(&[1, sps[1], sps[2], sps[3], 0xfc | 3]);
    // One SPS (count under three reserved 1 bits), then one PPS.
    record.push(0xe0 | 1);
    record.extend_from_slice(&sps_len.to_be_bytes());
    record.extend_from_slice(sps);
    record.push(1);
    record.extend_from_slice(&pps_len.to_be_bytes());
    record.extend_from_slice(pps);
    Ok(record)
}

mod ffi {
    use std::ffi::{c_char, c_int};

    /// `rs_x264`: opaque.
    pub(crate) enum Shim {}

    /// `rs_x264_config`.
    #[repr(C)]
    pub(crate) struct Config {
        pub(crate) width: c_int,
        pub(crate) height: c_int,
        pub(crate) fps: c_int,
        pub(crate) preset: *const c_char,
        pub(crate) crf: f32,
        pub(crate) vbv_max_kbps: c_int,
        pub(crate) vbv_buffer_kbit: c_int,
        pub(crate) keyint: c_int,
        pub(crate) threads: c_int,
        pub(crate) sync_lookahead: c_int,
        pub(crate) asm_name: *const c_char,
    }

    /// `rs_x264_packet`.
    #[repr(C)]
    pub(crate) struct RawPacket {
        pub(crate) data: *const u8,
        pub(crate) size: c_int,
        pub(crate) pts: i64,
        pub(crate) dts: i64,
        pub(crate) keyframe: c_int,
    }

    impl Default for RawPacket {
        fn default() -> Self {
            RawPacket {
                data: std::ptr::null(),
                size: 0,
                pts: 0,
                dts: 0,
                keyframe: 0,
            }
        }
    }

    unsafe extern "C" {
        pub(crate) fn rs_x264_open(
            config: *const Config,
            err: *mut c_char,
            err_len: usize,
        ) -> *mut Shim;
        pub(crate) fn rs_x264_headers(
            shim: *mut Shim,
            sps: *mut *const u8,
            sps_len: *mut c_int,
            pps: *mut *const u8,
            pps_len: *mut c_int,
        ) -> c_int;
        pub(crate) fn rs_x264_encode(
            shim: *mut Shim,
            planes: *const *const u8,
            strides: *const c_int,
            pts: i64,
            idr: c_int,
            out: *mut RawPacket,
        ) -> c_int;
        pub(crate) fn rs_x264_delayed(shim: *mut Shim) -> c_int;
        pub(crate) fn rs_x264_close(shim: *mut Shim);
        pub(crate) fn rs_x264_version() -> *const c_char;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings<'static> {
        Settings {
            width: 64,
            height: 48,
            fps: 30,
            preset: "veryfast",
            crf: 23.0,
            vbv_max_kbps: 8_000,
            vbv_buffer_kbit: 4_800,
            keyint: 60,
            threads: 2,
            sync_lookahead: -1,
            asm: deterministic_asm(),
        }
    }

    /// x264's AVX-512 code reads memory it never wrote, so the same frames can encode to other
    /// bytes from run to run on a host that has it (the compositor holds x264 to AVX2 for the
    /// same reason): these tests hold it to AVX2 where the host has that, as the product does.
    fn deterministic_asm() -> Option<&'static str> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some("avx2");
        }
        None
    }

    /// A frame of `settings()`' size: a moving gradient.
    fn frame(index: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        let y = (0..64 * 48)
            .map(|i| ((i % 64) * 3 + index * 5) as u8)
            .collect();
        (y, vec![128; 32 * 24], vec![100; 32 * 24])
    }

    fn encode_all(frames: usize) -> Vec<(Vec<u8>, i64, i64, bool)> {
        encode_with_idrs(frames, &[])
    }

    /// `frames` frames in one stream, each of `idrs` forced to be an IDR frame.
    fn encode_with_idrs(frames: usize, idrs: &[usize]) -> Vec<(Vec<u8>, i64, i64, bool)> {
        let mut encoder = Encoder::open(&settings()).unwrap();
        let mut out = Vec::new();
        for i in 0..frames {
            let (y, u, v) = frame(i);
            let picture = Picture {
                planes: [&y, &u, &v],
                strides: [64, 32, 32],
                idr: idrs.contains(&i),
            };
            if let Some(p) = encoder.encode(picture, i as i64 * 100).unwrap() {
                out.push((p.data.to_vec(), p.pts, p.dts, p.keyframe));
            }
        }
        while let Some(p) = encoder.flush().unwrap() {
            out.push((p.data.to_vec(), p.pts, p.dts, p.keyframe));
        }
        out
    }

    #[test]
    fn every_frame_comes_out_once_starting_on_a_keyframe() {
        let packets = encode_all(20);
        assert_eq!(packets.len(), 20);
        assert!(packets[0].3, "the first frame is an IDR");
        let mut pts: Vec<i64> = packets.iter().map(|p| p.1).collect();
        pts.sort_unstable();
        assert_eq!(pts, (0..20).map(|i| i * 100).collect::<Vec<_>>());
        // Decoding order: DTS rises, and no frame decodes after it is shown.
        assert!(packets.windows(2).all(|w| w[0].2 < w[1].2));
        assert!(packets.iter().all(|p| p.2 <= p.1));
    }

    #[test]
    fn a_forced_idr_cuts_the_stream_into_parts_coded_one_after_the_other() {
        // Frames 0..23 and 23..50 of one stream, the second part starting on a forced IDR
        // where x264 alone would have put a B-frame.
        let packets = encode_with_idrs(50, &[23]);
        assert_eq!(packets.len(), 50);
        let cut = 23 * 100;
        let first_of_second = packets.iter().position(|p| p.1 >= cut).unwrap();
        assert_eq!(
            first_of_second, 23,
            "every frame shown before the cut is coded before it"
        );
        assert_eq!(packets[first_of_second].1, cut);
        assert!(
            packets[first_of_second].3,
            "the second part starts on an IDR frame"
        );
        assert!(packets[first_of_second..].iter().all(|p| p.1 >= cut));
        // Decoding times stand below the cut by as much as they stand below the stream's first
        // frame: each part has the timing of a stream of its own.
        assert_eq!(
            packets[0].1 - packets[0].2,
            cut - packets[first_of_second].2
        );
    }

    #[test]
    fn a_single_frame_comes_out() {
        for n in 1..4 {
            assert_eq!(encode_all(n).len(), n);
        }
    }

    #[test]
    fn access_units_are_length_prefixed_nal_units() {
        for (data, ..) in encode_all(8) {
            let mut at = 0;
            while at < data.len() {
                let len = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
                assert!(
                    len > 0 && at + 4 + len <= data.len(),
                    "NAL at {at} overruns"
                );
                at += 4 + len;
            }
            assert_eq!(at, data.len());
            // Each access unit starts with its delimiter (NAL type 9).
            assert_eq!(data[4] & 0x1f, 9);
        }
    }

    #[test]
    fn the_same_frames_encode_to_the_same_bytes() {
        assert_eq!(encode_all(12), encode_all(12));
    }

    #[test]
    fn the_decoder_config_holds_the_high_profile_sps_and_pps() {
        let encoder = Encoder::open(&settings()).unwrap();
        let record = encoder.avc_config().unwrap();
        assert_eq!(record[0], 1);
        assert_eq!(record[1], 100, "High profile");
        assert_eq!(record[4], 0xff);
        let sps_len = u16::from_be_bytes([record[6], record[7]]) as usize;
        assert_eq!(record[8] & 0x1f, 7, "an SPS");
        let pps_at = 8 + sps_len;
        assert_eq!(record[pps_at], 1, "one PPS");
        assert_eq!(record[pps_at + 3] & 0x1f, 8, "a PPS");
    }

    #[test]
    fn a_short_plane_is_refused_before_x264_reads_it() {
        let mut encoder = Encoder::open(&settings()).unwrap();
        let (y, u, v) = frame(0);
        let picture = Picture {
            planes: [&y[..64 * 47], &u, &v],
            strides: [64, 32, 32],
            idr: false,
        };
        assert!(matches!(encoder.encode(picture, 0), Err(Error::Invalid(_))));
    }

    #[test]
    fn a_huge_stride_is_refused() {
        let mut encoder = Encoder::open(&settings()).unwrap();
        let (y, u, v) = frame(0);
        let picture = Picture {
            planes: [&y, &u, &v],
            strides: [usize::MAX / 2, 32, 32],
            idr: false,
        };
        assert!(matches!(encoder.encode(picture, 0), Err(Error::Invalid(_))));
    }

    #[test]
    fn bad_settings_are_refused() {
        let odd = Settings {
            width: 63,
            ..settings()
        };
        assert!(matches!(Encoder::open(&odd), Err(Error::Invalid(_))));
        let preset = Settings {
            preset: "warp-speed",
            ..settings()
        };
        assert!(matches!(Encoder::open(&preset), Err(Error::Failed(_))));
    }

    #[test]
    fn the_version_names_the_api_build() {
        assert!(version().starts_with("0.1"), "{}", version());
    }
}
