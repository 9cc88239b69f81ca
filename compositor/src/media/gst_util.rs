//! Small GStreamer helpers shared by encoding and decoding.

use gstreamer as gst;
use gstreamer::prelude::*;

use super::error::{MediaError, package_of};

/// Initialises GStreamer once per process (cheap after the first call).
pub(crate) fn init() -> Result<(), MediaError> {
    gst::init().map_err(|e| MediaError::Init(e.to_string()))
}

/// Whether an element factory is installed.
pub(crate) fn has_factory(name: &str) -> bool {
    gst::ElementFactory::find(name).is_some()
}

/// The error for a factory that is not installed (or cannot be loaded).
pub(crate) fn missing(element: &str) -> MediaError {
    MediaError::MissingElement {
        element: element.to_owned(),
        package: package_of(element),
    }
}

/// Creates an element, mapping "no such factory" to [`MediaError::MissingElement`].
pub(crate) fn make(factory: &str) -> Result<gst::Element, MediaError> {
    if !has_factory(factory) {
        return Err(missing(factory));
    }
    gst::ElementFactory::make(factory)
        .build()
        .map_err(|e| MediaError::pipeline(factory, e.to_string()))
}

/// A `capsfilter` with the given caps.
/// Caps of interleaved signed 16-bit little-endian PCM at `sample_rate` with `channels`: the
/// one raw audio format our pipelines read and write.
pub(crate) fn s16le_caps(sample_rate: u32, channels: u16) -> Result<gst::Caps, MediaError> {
    gstreamer_audio::AudioInfo::builder(
        gstreamer_audio::AudioFormat::S16le,
        sample_rate,
        u32::from(channels),
    )
    .build()
    .and_then(|info| info.to_caps())
    .map_err(|e| MediaError::InvalidInput(format!("audio format: {e}")))
}

pub(crate) fn capsfilter(caps: &gst::Caps) -> Result<gst::Element, MediaError> {
    let filter = make("capsfilter")?;
    filter.set_property("caps", caps);
    Ok(filter)
}

/// Sets a property only when the element has it (encoders differ between plugins and versions).
pub(crate) fn set_if_present(element: &gst::Element, name: &str, value: &str) {
    if element.find_property(name).is_some() {
        element.set_property_from_str(name, value);
    }
}

/// Owns a pipeline and brings it to `Null` when dropped, so every exit path — `?`, an early
/// return or a panic unwinding through the renderer — releases files and threads.
pub(crate) struct PipelineGuard(pub(crate) gst::Pipeline);

impl Drop for PipelineGuard {
    fn drop(&mut self) {
        let _ = self.0.set_state(gst::State::Null);
    }
}

impl std::ops::Deref for PipelineGuard {
    type Target = gst::Pipeline;
    fn deref(&self) -> &gst::Pipeline {
        &self.0
    }
}

/// Turns an error message from the bus into a [`MediaError`].
pub(crate) fn bus_error(err: &gst::message::Error) -> MediaError {
    let element = err
        .src()
        .map(|s| s.path_string().to_string())
        .unwrap_or_else(|| "pipeline".to_owned());
    let error = err.error();
    // A missing plugin surfaces as a core "missing plugin" error or a stream "codec not found".
    if error.matches(gst::CoreError::MissingPlugin)
        || error.matches(gst::StreamError::CodecNotFound)
    {
        let detail = err.debug().map(|d| d.to_string()).unwrap_or_default();
        return MediaError::pipeline(
            element,
            format!(
                "{error} — a GStreamer plugin is missing (install gstreamer1.0-plugins-good/-bad/-ugly and gstreamer1.0-libav) {detail}"
            ),
        );
    }
    let message = match err.debug() {
        Some(debug) => format!("{error} ({debug})"),
        None => error.to_string(),
    };
    MediaError::pipeline(element, message)
}

/// Whether a bus error says the input is not a media file GStreamer understands.
pub(crate) fn is_unsupported_format(err: &gst::message::Error) -> bool {
    let error = err.error();
    error.matches(gst::StreamError::TypeNotFound)
        || error.matches(gst::StreamError::WrongType)
        || error.matches(gst::StreamError::Demux)
        || error.matches(gst::StreamError::Decode)
        || error.matches(gst::StreamError::Format)
}

/// Sets a state, mapping a refusal to a [`MediaError`] that names the pipeline.
pub(crate) fn set_state(pipeline: &gst::Pipeline, state: gst::State) -> Result<(), MediaError> {
    pipeline.set_state(state).map(|_| ()).map_err(|_| {
        // The element that refused usually posted the reason on the bus first.
        pipeline
            .bus()
            .and_then(|bus| bus.pop_filtered(&[gst::MessageType::Error]))
            .and_then(|msg| match msg.view() {
                gst::MessageView::Error(err) => Some(bus_error(err)),
                _ => None,
            })
            .unwrap_or_else(|| {
                MediaError::pipeline(
                    pipeline.name(),
                    format!("could not change state to {state:?}"),
                )
            })
    })
}
