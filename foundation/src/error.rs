//! Domain errors. Each carries a stable [`Code`]. The one table below gives every code its wire
//! name and its [`Family`], which fixes the HTTP status and the envelope's `type`; the HTTP
//! layer (`api::errors`) only reads it.

use serde_json::Value;
use std::fmt;

/// The family of an error: its HTTP status and the envelope's `type` (DESIGN.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    InvalidRequest,
    Authentication,
    PaymentRequired,
    Permission,
    NotFound,
    MethodNotAllowed,
    /// The state of the thing forbids the request (409).
    Precondition,
    /// Was here and is gone (410).
    Gone,
    PayloadTooLarge,
    UnsupportedMediaType,
    Unprocessable,
    RateLimit,
    /// A service or server we called failed (502).
    Upstream,
    Internal,
}

impl Family {
    /// The HTTP status.
    pub fn status(self) -> u16 {
        match self {
            Family::InvalidRequest => 400,
            Family::Authentication => 401,
            Family::PaymentRequired => 402,
            Family::Permission => 403,
            Family::NotFound => 404,
            Family::MethodNotAllowed => 405,
            Family::Precondition => 409,
            Family::Gone => 410,
            Family::PayloadTooLarge => 413,
            Family::UnsupportedMediaType => 415,
            Family::Unprocessable => 422,
            Family::RateLimit => 429,
            Family::Upstream => 502,
            Family::Internal => 500,
        }
    }

    /// The envelope's `error.type`.
    pub fn type_name(self) -> &'static str {
        match self {
            Family::InvalidRequest | Family::UnsupportedMediaType => "invalid_request_error",
            Family::Authentication => "authentication_error",
            Family::PaymentRequired => "payment_required",
            Family::Permission => "permission_error",
            Family::NotFound | Family::Gone => "not_found",
            Family::MethodNotAllowed => "method_not_allowed",
            Family::Precondition => "precondition_failed",
            Family::PayloadTooLarge => "payload_too_large",
            Family::Unprocessable => "unprocessable_entity",
            Family::RateLimit => "rate_limit_error",
            Family::Upstream => "upstream_error",
            Family::Internal => "api_error",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $s:literal, $family:ident,)*) => {
        /// Every error code the service can answer with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            /// The wire form of the code (`error.code`).
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $s,)* }
            }

            /// Its family: the HTTP status and the envelope's `type`.
            pub fn family(self) -> Family {
                match self { $(Code::$variant => Family::$family,)* }
            }

            /// Every code, for tables and tests.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code whose wire name is `name`. Where the spec gives one name two statuses
            /// (`invalid_channel_group`, `download_failed`), the first code is taken: it is the
            /// same code on the wire.
            pub fn from_wire(name: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|c| c.as_str() == name)
            }
        }
    };
}

/// A code is stored and sent as its wire name (a failed job's `error.code`).
impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Code, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Code::from_wire(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {name:?}")))
    }
}

// Every code: its wire name and family. Job failure codes (`status.error.code`) are `Internal`:
// if one ever reaches the envelope it is a server fault.
codes! {
    // request shape
    RouteNotFound => "route_not_found", NotFound,
    MethodNotAllowed => "method_not_allowed", MethodNotAllowed,
    PayloadTooLarge => "payload_too_large", PayloadTooLarge,
    InvalidJson => "invalid_json", InvalidRequest,
    MissingField => "missing_field", InvalidRequest,
    InvalidField => "invalid_field", InvalidRequest,
    UnsupportedMediaType => "unsupported_media_type", UnsupportedMediaType,
    // auth and billing
    MissingApiKey => "missing_api_key", Authentication,
    InvalidApiKey => "invalid_api_key", Authentication,
    AccountExpired => "account_expired", PaymentRequired,
    CreditExhausted => "credit_exhausted", PaymentRequired,
    PlanRequired => "plan_required", PaymentRequired,
    ReadOnlyLink => "read_only_link", Permission,
    // create_video
    InvalidSource => "invalid_source", InvalidRequest,
    InvalidOutputType => "invalid_output_type", InvalidRequest,
    InvalidLanguage => "invalid_language", InvalidRequest,
    InvalidVideoLength => "invalid_video_length", InvalidRequest,
    InvalidResearchEnabled => "invalid_research_enabled", InvalidRequest,
    InvalidWaitForRender => "invalid_wait_for_render", InvalidRequest,
    InvalidMetadata => "invalid_metadata", InvalidRequest,
    InvalidCallbackUrl => "invalid_callback_url", InvalidRequest,
    ScriptTooShort => "script_too_short", InvalidRequest,
    ScriptTooLong => "script_too_long", InvalidRequest,
    InputTooShort => "input_too_short", InvalidRequest,
    MediaTooLong => "media_too_long", InvalidRequest,
    FileTooLarge => "file_too_large", InvalidRequest,
    UnsupportedMediaUrl => "unsupported_media_url", InvalidRequest,
    InvalidAdjust => "invalid_adjust", InvalidRequest,
    InvalidFaceless => "invalid_faceless", InvalidRequest,
    InvalidMusic => "invalid_music", InvalidRequest,
    // jobs
    InvalidId => "invalid_id", InvalidRequest,
    VideoNotFound => "video_not_found", NotFound,
    ScenesNotReady => "scenes_not_ready", Precondition,
    // job failures (status.error.code)
    SceneBuildFailed => "scene_build_failed", Internal,
    NarrationTooLong => "narration_too_long", Internal,
    RenderFailed => "render_failed", Internal,
    MediaFetchFailed => "media_fetch_failed", Upstream,
    MediaSourceUnsupported => "media_source_unsupported", Internal,
    // scenes: video_data, scene_geometry, scene_inspector
    ScriptNotReady => "script_not_ready", Precondition,
    ScriptParseFailed => "script_parse_failed", Upstream,
    SceneNotFound => "scene_not_found", NotFound,
    NothingToUndo => "nothing_to_undo", Precondition,
    NothingToRedo => "nothing_to_redo", Precondition,
    InvalidBy => "invalid_by", InvalidRequest,
    AmbiguousScene => "ambiguous_scene", Precondition,
    SceneGeometryFailed => "scene_geometry_failed", Internal,
    ScreenshotPublishFailed => "screenshot_publish_failed", Internal,
    OverlayNotAvailable => "overlay_not_available", Precondition,
    // scene_inspector: the open editor tab could not do a live action (its reason in words)
    EditorRefused => "editor_refused", Precondition,
    OverlayPublishFailed => "overlay_publish_failed", Internal,
    VideoDataPublishFailed => "video_data_publish_failed", Internal,
    // modify_scene and edit_session
    Svg2specFailed => "svg2spec_failed", Unprocessable,
    NoSvgOverlaySource => "no_svg_overlay_source", Unprocessable,
    // A layout edit on a scene whose overlay the user disabled: well formed, but the scene's
    // state forbids it.
    RemotionSpecDisabled => "remotion_spec_disabled", Precondition,
    InvalidFieldName => "invalid_field_name", InvalidRequest,
    InvalidValue => "invalid_value", InvalidRequest,
    MixedFieldFamilies => "mixed_field_families", InvalidRequest,
    InvalidAction => "invalid_action", InvalidRequest,
    TopicNotFound => "topic_not_found", NotFound,
    TopicFetchFailed => "topic_fetch_failed", Upstream,
    DownloadFailed => "download_failed", Upstream,
    // typography
    InvalidRole => "invalid_role", InvalidRequest,
    InvalidWords => "invalid_words", InvalidRequest,
    InvalidDuration => "invalid_duration", InvalidRequest,
    InvalidWait => "invalid_wait", InvalidRequest,
    InvalidBrand => "invalid_brand", InvalidRequest,
    InvalidLook => "invalid_look", InvalidRequest,
    TextTooLong => "text_too_long", InvalidRequest,
    QuoteTooLong => "quote_too_long", InvalidRequest,
    TypographyNotFound => "typography_not_found", NotFound,
    DeliveryNotFound => "delivery_not_found", NotFound,
    TypographyFailed => "typography_failed", Internal,
    // production plan, roadmap, videos list
    InvalidTopicId => "invalid_topic_id", InvalidRequest,
    InvalidWeekStart => "invalid_week_start", InvalidRequest,
    InvalidWeekEnd => "invalid_week_end", InvalidRequest,
    InvalidScripts => "invalid_scripts", InvalidRequest,
    InvalidRecommendedFormat => "invalid_recommended_format", InvalidRequest,
    TopicExists => "topic_exists", Precondition,
    InvalidPage => "invalid_page", InvalidRequest,
    InvalidCycle => "invalid_cycle", InvalidRequest,
    InvalidFromRecord => "invalid_from_record", InvalidRequest,
    ReadFailed => "read_failed", Internal,
    // written content: create_content, enhance_script, collect_ideas
    InvalidCount => "invalid_count", InvalidRequest,
    InvalidIndustry => "invalid_industry", InvalidRequest,
    InvalidTemplate => "invalid_template", InvalidRequest,
    // written content job failures (status.error.code)
    ContentFetchFailed => "content_fetch_failed", Upstream,
    ContentUnreadable => "content_unreadable", Upstream,
    ContentWriteFailed => "content_write_failed", Internal,
    // upload_asset
    InvalidContentType => "invalid_content_type", InvalidRequest,
    InvalidFileData => "invalid_file_data", InvalidRequest,
    AssetTooLarge => "asset_too_large", InvalidRequest,
    UnsupportedAssetType => "unsupported_asset_type", InvalidRequest,
    UploadFailed => "upload_failed", Internal,
    PresignFailed => "presign_failed", Internal,
    PresignExpired => "presign_expired", InvalidRequest,
    PresignInvalid => "presign_invalid", InvalidRequest,
    PresignUsed => "presign_used", Precondition,
    // media sources
    TranscriptionFailed => "transcription_failed", Upstream,
    MediaDecodeFailed => "media_decode_failed", Unprocessable,
    // search and generation
    InvalidKind => "invalid_kind", InvalidRequest,
    InvalidRatio => "invalid_ratio", InvalidRequest,
    InvalidLimit => "invalid_limit", InvalidRequest,
    SearchFailed => "search_failed", Upstream,
    // notification/send
    SubjectTooLong => "subject_too_long", InvalidRequest,
    MessageTooLong => "message_too_long", InvalidRequest,
    InvalidParseMode => "invalid_parse_mode", InvalidRequest,
    ConflictingMedia => "conflicting_media", InvalidRequest,
    InvalidPhotoUrl => "invalid_photo_url", InvalidRequest,
    InvalidVideoUrl => "invalid_video_url", InvalidRequest,
    NoDeliveryChannel => "no_delivery_channel", InvalidRequest,
    RateLimited => "rate_limited", RateLimit,
    TooManyJobs => "too_many_jobs", RateLimit,
    QueueFull => "queue_full", RateLimit,
    NotificationSendFailed => "notification_send_failed", Upstream,
    // client_link/send
    InvalidLinkType => "invalid_link_type", InvalidRequest,
    InvalidChannels => "invalid_channels", InvalidRequest,
    // The spec's 500 case (no email on file) is the only one this server produces.
    ClientLinkFailed => "client_link_failed", Internal,
    // error/report
    ErrorMessageTooLong => "error_message_too_long", InvalidRequest,
    ModuleTooLong => "module_too_long", InvalidRequest,
    InvalidModule => "invalid_module", InvalidRequest,
    InvalidContext => "invalid_context", InvalidRequest,
    ErrorReportFailed => "error_report_failed", Upstream,
    // search_broll, create_image
    PromptTooLong => "prompt_too_long", InvalidRequest,
    ImageGenerationFailed => "image_generation_failed", Upstream,
    // publishing: publish, channel groups, connections, platform settings, analytics
    InvalidPublishInput => "invalid_publish_input", InvalidRequest,
    InvalidPlatforms => "invalid_platforms", InvalidRequest,
    // `channel_group` not an integer of at least 0 (400) / the group missing, or the primary
    // group on rename or delete (404): the spec gives one code two statuses, so two variants
    // share its wire name.
    InvalidChannelGroup => "invalid_channel_group", InvalidRequest,
    ChannelGroupNotFound => "invalid_channel_group", NotFound,
    NoPlatformsConnected => "no_platforms_connected", InvalidRequest,
    PublishNotReady => "publish_not_ready", Precondition,
    // An external `video_url` of `publish` not downloadable (400; modify_scene's
    // `download_failed` is an upstream 502).
    PublishDownloadFailed => "download_failed", InvalidRequest,
    PublishFailed => "publish_failed", InvalidRequest,
    InvalidScheduledDate => "invalid_scheduled_date", InvalidRequest,
    InvalidTimezone => "invalid_timezone", InvalidRequest,
    InvalidLabel => "invalid_label", InvalidRequest,
    InvalidSettings => "invalid_settings", InvalidRequest,
    InvalidPeriod => "invalid_period", InvalidRequest,
    InvalidDate => "invalid_date", InvalidRequest,
    ChannelGroupLimit => "channel_group_limit", Precondition,
    ProfileLimitReached => "profile_limit_reached", Precondition,
    UpstreamUsernameTaken => "upstream_username_taken", Precondition,
    ConnectFailed => "connect_failed", Upstream,
    // providers (connectors)
    UpstreamFailed => "upstream_failed", Upstream,
    // public media origin
    FileExpired => "file_expired", Gone,
    // server
    Internal => "internal_error", Internal,
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error meant for a client: a code, a human message that never carries
/// internals, and optionally the offending parameter and details.
#[derive(Debug, Clone)]
pub struct Error {
    pub code: Code,
    pub message: String,
    pub param: Option<String>,
    pub details: Option<Value>,
    /// Seconds until a retry may succeed (rate limits): the `Retry-After` header, and
    /// `details.retry_after_seconds`.
    pub retry_after: Option<u32>,
    /// What went wrong inside (a library's message, a path): logged with the request id by the
    /// HTTP layer, never sent.
    pub cause: Option<String>,
}

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            param: None,
            details: None,
            retry_after: None,
            cause: None,
        }
    }

    /// Adds the internal cause (logged, never sent).
    pub fn because(mut self, cause: impl fmt::Display) -> Self {
        self.cause = Some(cause.to_string());
        self
    }

    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    pub fn details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// When to try again: `secs` goes to the `Retry-After` header and to
    /// `details.retry_after_seconds` (set `details` first).
    pub fn retry_after(mut self, secs: u64) -> Self {
        let secs = u32::try_from(secs).unwrap_or(u32::MAX);
        let details = self
            .details
            .get_or_insert_with(|| Value::Object(Default::default()));
        if let Some(map) = details.as_object_mut() {
            map.insert("retry_after_seconds".into(), secs.into());
        }
        self.retry_after = Some(secs);
        self
    }

    /// A server-side failure. The cause is logged here, never sent.
    pub fn internal(cause: impl fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Error::new(
            Code::Internal,
            "The server hit an internal error; try again later.",
        )
        .because(cause)
    }

    pub fn missing(field: &str) -> Self {
        Error::new(Code::MissingField, format!("`{field}` is required.")).param(field)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_from_its_wire_name() {
        for code in Code::ALL {
            let read = Code::from_wire(code.as_str()).expect("a wire name reads");
            assert_eq!(read.as_str(), code.as_str());
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(serde_json::from_value::<Code>(json).unwrap(), read);
        }
        assert_eq!(Code::from_wire("no_such_code"), None);
    }
}
