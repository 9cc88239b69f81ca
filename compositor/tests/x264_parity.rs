//! The software encoder drives libx264 itself (`x264` crate, `media/x264_thread.rs`). It was
//! GStreamer's `x264enc`; these tests hold it to the stream that element wrote from the same
//! frames: every packet's bytes, timestamps and flags, and the decoder configuration. So chunks
//! stay what they were, and a player sees no difference.

use std::path::Path;

use compositor::media::convert::{I420Layout, rgba_to_i420};
use compositor::media::{
    EncodeSettings, EncoderChoice, FrameSource, encode_video, encoder_identity,
};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use gstreamer_video as gst_video;

const WIDTH: u32 = 720;
const HEIGHT: u32 = 1280;
const FPS: u32 = 30;

/// Moving stripes and a drifting block: enough motion for P- and B-frames and a second GOP.
struct Motion {
    frames: u64,
}

impl FrameSource for Motion {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        let (w, i) = (WIDTH as usize, index as usize);
        for (y, row) in rgba.chunks_exact_mut(w * 4).enumerate() {
            for (x, px) in row.chunks_exact_mut(4).enumerate() {
                let inside = (x + 4 * i) % w < 160 && (y + 3 * i) % 1280 < 200;
                let stripe = (((x + y + 6 * i) / 24) % 2 * 160) as u8;
                let v = if inside { 240 } else { stripe };
                px.copy_from_slice(&[v, (y / 6) as u8, (x / 3) as u8, 255]);
            }
        }
    }
}

fn settings() -> EncodeSettings {
    EncodeSettings {
        encoder: EncoderChoice::Software,
        ..EncodeSettings::default()
    }
}

/// The same frames through `appsrc ! x264enc ! h264parse ! mp4mux`, x264enc set as the
/// compositor set it before it drove libx264 itself.
fn encode_with_x264enc(frames: &Motion, settings: &EncodeSettings, out: &Path) {
    gst::init().unwrap();
    let identity = encoder_identity(settings).unwrap();
    let asm = identity
        .split(' ')
        .find_map(|w| w.strip_prefix("asm-"))
        .unwrap();
    let options = if asm.starts_with("auto") {
        String::new()
    } else {
        format!("asm={asm}")
    };
    let colorimetry = gst_video::VideoColorimetry::new(
        gst_video::VideoColorRange::Range16_235,
        gst_video::VideoColorMatrix::Bt709,
        gst_video::VideoTransferFunction::Bt709,
        gst_video::VideoColorPrimaries::Bt709,
    );
    let info = gst_video::VideoInfo::builder(gst_video::VideoFormat::I420, WIDTH, HEIGHT)
        .fps(gst::Fraction::new(FPS as i32, 1))
        .par(gst::Fraction::new(1, 1))
        .colorimetry(&colorimetry)
        .build()
        .unwrap();
    let pipeline = gst::parse::launch(&format!(
        "appsrc name=src format=time ! x264enc speed-preset=veryfast pass=qual quantizer=23 \
         bitrate=8000 key-int-max=60 threads=2 sync-lookahead=-1 option-string=\"{options}\" \
         ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location={}",
        out.display()
    ))
    .unwrap()
    .downcast::<gst::Pipeline>()
    .unwrap();
    let src = pipeline
        .by_name("src")
        .unwrap()
        .downcast::<gst_app::AppSrc>()
        .unwrap();
    src.set_caps(Some(&info.to_caps().unwrap()));
    pipeline.set_state(gst::State::Playing).unwrap();
    let layout = I420Layout::new(WIDTH, HEIGHT).unwrap();
    let mut rgba = vec![0; WIDTH as usize * HEIGHT as usize * 4];
    for index in 0..frames.frames {
        frames.render(index, &mut rgba);
        let mut i420 = vec![0; layout.size];
        rgba_to_i420(&rgba, &layout, &mut i420).unwrap();
        let mut buffer = gst::Buffer::from_mut_slice(i420);
        let at = |i: u64| gst::ClockTime::from_nseconds(i * 1_000_000_000 / u64::from(FPS));
        let b = buffer.get_mut().unwrap();
        b.set_pts(at(index));
        b.set_duration(at(index + 1) - at(index));
        src.push_buffer(buffer).unwrap();
    }
    src.end_of_stream().unwrap();
    let bus = pipeline.bus().unwrap();
    let msg = bus
        .timed_pop_filtered(
            gst::ClockTime::from_seconds(120),
            &[gst::MessageType::Eos, gst::MessageType::Error],
        )
        .expect("x264enc finishes");
    assert!(matches!(msg.view(), gst::MessageView::Eos(_)), "{msg:?}");
    pipeline.set_state(gst::State::Null).unwrap();
}

/// Each video packet's timing, flags and MD5, and the stream's codec configuration.
fn packets(path: &Path) -> (String, Vec<String>) {
    let stream = crate::run_quiet(
        "ffprobe",
        [
            "-select_streams", "v:0", "-show_entries",
            "stream=codec_name,profile,level,width,height,pix_fmt,color_range,color_space,color_primaries,color_transfer,extradata_hash,r_frame_rate,time_base",
            "-show_data_hash", "md5", "-of", "compact",
        ]
        .iter()
        .map(std::ffi::OsStr::new)
        .chain([path.as_os_str()]),
    );
    let packets = crate::run_quiet(
        "ffprobe",
        [
            "-select_streams",
            "v:0",
            "-show_entries",
            "packet=pts,dts,duration,flags,size,data_hash",
            "-show_data_hash",
            "md5",
            "-of",
            "compact",
        ]
        .iter()
        .map(std::ffi::OsStr::new)
        .chain([path.as_os_str()]),
    );
    let lines = String::from_utf8(packets)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (String::from_utf8(stream).unwrap(), lines)
}

/// Encodes `frames` both ways and compares the streams packet by packet.
fn assert_same_stream(frames: u64) {
    let dir = tempfile::tempdir().unwrap();
    let frames = Motion { frames };
    let ours = dir.path().join("libx264.mp4");
    let report = encode_video(&frames, &settings(), &ours, &mut |_, _| {}).unwrap();
    assert_eq!(report.encoder, "libx264");
    let theirs = dir.path().join("x264enc.mp4");
    encode_with_x264enc(&frames, &settings(), &theirs);

    let (our_stream, our_packets) = packets(&ours);
    let (their_stream, their_packets) = packets(&theirs);
    assert_eq!(our_stream, their_stream);
    assert_eq!(our_packets.len() as u64, frames.frames);
    for (i, (a, b)) in our_packets.iter().zip(&their_packets).enumerate() {
        assert_eq!(a, b, "packet {i} of {}", frames.frames);
    }
    assert_eq!(our_packets.len(), their_packets.len());
}

#[test]
fn libx264_writes_the_stream_x264enc_wrote() {
    // Two GOPs and a half, with B-frames reordered across them.
    assert_same_stream(75);
}

#[test]
fn short_streams_lose_no_frame() {
    // A lone frame is one x264 no longer counts as delayed; a few end inside a B-frame run.
    for frames in [1, 2, 7] {
        assert_same_stream(frames);
    }
}
