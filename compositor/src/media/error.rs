//! The one error type of [`crate::media`].

use std::path::PathBuf;

/// Everything that can go wrong while probing, decoding or encoding media.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// `gst::init()` failed (no usable GStreamer installation).
    #[error("GStreamer could not be initialised: {0}")]
    Init(String),

    /// An element we need is not installed.
    #[error("GStreamer element `{element}` is not available; install {package}")]
    MissingElement {
        /// Factory name, e.g. `x264enc`.
        element: String,
        /// The Debian package that ships it.
        package: &'static str,
    },

    /// The caller's input cannot be encoded or decoded (zero frames, empty audio, odd size, …).
    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// The file is not something GStreamer can demux or decode.
    #[error("{}: not a recognised audio or video file ({detail})", path.display())]
    UnsupportedFormat {
        /// The file that was opened.
        path: PathBuf,
        /// GStreamer's own explanation.
        detail: String,
    },

    /// The file has no audio stream to decode.
    #[error("{}: the file has no audio stream", path.display())]
    NoAudio {
        /// The file that was opened.
        path: PathBuf,
    },

    /// The file has no video stream (a clip was expected).
    #[error("{}: the file has no video stream", path.display())]
    NoVideo {
        /// The file that was opened.
        path: PathBuf,
    },

    /// The file's duration could not be determined.
    #[error("{}: duration could not be determined", path.display())]
    UnknownDuration {
        /// The file that was opened.
        path: PathBuf,
    },

    /// `EncoderChoice::Hardware` was requested but no hardware H.264 encoder works here.
    #[error("no working hardware H.264 encoder (tried: {tried})")]
    NoHardwareEncoder {
        /// The factories that were present but failed, or "none installed".
        tried: String,
    },

    /// An element posted an error on the bus, or the pipeline refused a state change.
    #[error("GStreamer error from `{element}`: {message}")]
    Pipeline {
        /// Name of the element that reported it.
        element: String,
        /// GStreamer's message, with its debug detail when there is one.
        message: String,
    },

    /// A file could not be read, written or renamed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
}

impl MediaError {
    /// A pipeline-level failure not tied to a bus message (a refused state change, a failed link).
    pub(crate) fn pipeline(element: impl Into<String>, message: impl Into<String>) -> Self {
        MediaError::Pipeline {
            element: element.into(),
            message: message.into(),
        }
    }
}

/// The Debian package that ships a GStreamer element, for "install …" hints.
pub(crate) fn package_of(element: &str) -> &'static str {
    match element {
        "x264enc" => "gstreamer1.0-plugins-ugly",
        "avenc_aac" | "avdec_aac" | "avdec_h264" => "gstreamer1.0-libav",
        "mp4mux" | "qtdemux" | "wavparse" | "isomp4" => "gstreamer1.0-plugins-good",
        "h264parse" | "voaacenc" | "fdkaacenc" | "faad" | "nvh264enc" | "nvcudah264enc"
        | "vah264enc" | "vah264lpenc" | "qsvh264enc" => "gstreamer1.0-plugins-bad",
        "vaapih264enc" => "gstreamer1.0-vaapi",
        "v4l2h264enc" => "gstreamer1.0-plugins-good",
        "aacparse" => "gstreamer1.0-plugins-good",
        "videocrop" | "videoflip" => "gstreamer1.0-plugins-good",
        "appsrc" | "appsink" | "videoscale" | "audioconvert" | "audioresample" | "videoconvert"
        | "decodebin" | "uridecodebin" | "typefind" | "videotestsrc" => "gstreamer1.0-plugins-base",
        "filesrc" | "filesink" | "queue" | "capsfilter" | "fakesink" => {
            "libgstreamer1.0-0 (GStreamer core)"
        }
        _ => "the GStreamer plugin package that provides it",
    }
}
