//! Domain errors. Each carries a stable [`Code`]; the HTTP layer alone maps a
//! code to a status and error type (`api::errors`), through an exhaustive match.

use serde_json::Value;
use std::fmt;

macro_rules! codes {
    ($($variant:ident => $s:literal,)*) => {
        /// Every error code the service can answer with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            /// The wire form of the code (`error.code`).
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $s,)* }
            }

            /// Every code, for tables and tests.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];
        }
    };
}

codes! {
    // request shape
    RouteNotFound => "route_not_found",
    MethodNotAllowed => "method_not_allowed",
    PayloadTooLarge => "payload_too_large",
    InvalidJson => "invalid_json",
    MissingField => "missing_field",
    InvalidField => "invalid_field",
    UnsupportedMediaType => "unsupported_media_type",
    // auth and billing
    MissingApiKey => "missing_api_key",
    InvalidApiKey => "invalid_api_key",
    AccountExpired => "account_expired",
    CreditExhausted => "credit_exhausted",
    PlanRequired => "plan_required",
    ReadOnlyLink => "read_only_link",
    // create_video
    InvalidSource => "invalid_source",
    InvalidOutputType => "invalid_output_type",
    InvalidLanguage => "invalid_language",
    InvalidVideoLength => "invalid_video_length",
    InvalidResearchEnabled => "invalid_research_enabled",
    InvalidWaitForRender => "invalid_wait_for_render",
    InvalidMetadata => "invalid_metadata",
    InvalidCallbackUrl => "invalid_callback_url",
    ScriptTooShort => "script_too_short",
    ScriptTooLong => "script_too_long",
    InputTooShort => "input_too_short",
    MediaTooLong => "media_too_long",
    FileTooLarge => "file_too_large",
    UnsupportedMediaUrl => "unsupported_media_url",
    InvalidAdjust => "invalid_adjust",
    InvalidFaceless => "invalid_faceless",
    InvalidMusic => "invalid_music",
    // jobs
    InvalidId => "invalid_id",
    VideoNotFound => "video_not_found",
    ScenesNotReady => "scenes_not_ready",
    // job failures (status.error.code)
    SceneBuildFailed => "scene_build_failed",
    NarrationTooLong => "narration_too_long",
    RenderFailed => "render_failed",
    MediaFetchFailed => "media_fetch_failed",
    MediaSourceUnsupported => "media_source_unsupported",
    // scenes: video_data, scene_geometry, scene_inspector
    ScriptNotReady => "script_not_ready",
    ScriptParseFailed => "script_parse_failed",
    SceneNotFound => "scene_not_found",
    NothingToUndo => "nothing_to_undo",
    NothingToRedo => "nothing_to_redo",
    InvalidBy => "invalid_by",
    AmbiguousScene => "ambiguous_scene",
    SceneGeometryFailed => "scene_geometry_failed",
    ScreenshotPublishFailed => "screenshot_publish_failed",
    OverlayNotAvailable => "overlay_not_available",
    // scene_inspector: the open editor tab could not do a live action (its reason in words)
    EditorRefused => "editor_refused",
    OverlayPublishFailed => "overlay_publish_failed",
    VideoDataPublishFailed => "video_data_publish_failed",
    // modify_scene and edit_session
    Svg2specFailed => "svg2spec_failed",
    NoSvgOverlaySource => "no_svg_overlay_source",
    RemotionSpecDisabled => "remotion_spec_disabled",
    InvalidFieldName => "invalid_field_name",
    InvalidValue => "invalid_value",
    MixedFieldFamilies => "mixed_field_families",
    InvalidAction => "invalid_action",
    TopicNotFound => "topic_not_found",
    TopicFetchFailed => "topic_fetch_failed",
    DownloadFailed => "download_failed",
    // typography
    InvalidRole => "invalid_role",
    InvalidWords => "invalid_words",
    InvalidDuration => "invalid_duration",
    InvalidWait => "invalid_wait",
    InvalidBrand => "invalid_brand",
    InvalidLook => "invalid_look",
    TextTooLong => "text_too_long",
    QuoteTooLong => "quote_too_long",
    TypographyNotFound => "typography_not_found",
    DeliveryNotFound => "delivery_not_found",
    TypographyFailed => "typography_failed",
    // production plan, roadmap, videos list
    InvalidTopicId => "invalid_topic_id",
    InvalidWeekStart => "invalid_week_start",
    InvalidWeekEnd => "invalid_week_end",
    InvalidScripts => "invalid_scripts",
    InvalidRecommendedFormat => "invalid_recommended_format",
    TopicExists => "topic_exists",
    InvalidPage => "invalid_page",
    InvalidCycle => "invalid_cycle",
    InvalidFromRecord => "invalid_from_record",
    ReadFailed => "read_failed",
    // written content: create_content, enhance_script, collect_ideas
    InvalidCount => "invalid_count",
    InvalidIndustry => "invalid_industry",
    InvalidTemplate => "invalid_template",
    // written content job failures (status.error.code)
    ContentFetchFailed => "content_fetch_failed",
    ContentUnreadable => "content_unreadable",
    ContentWriteFailed => "content_write_failed",
    // upload_asset
    InvalidContentType => "invalid_content_type",
    InvalidFileData => "invalid_file_data",
    AssetTooLarge => "asset_too_large",
    UnsupportedAssetType => "unsupported_asset_type",
    UploadFailed => "upload_failed",
    PresignFailed => "presign_failed",
    PresignExpired => "presign_expired",
    PresignInvalid => "presign_invalid",
    PresignUsed => "presign_used",
    // media sources
    TranscriptionFailed => "transcription_failed",
    MediaDecodeFailed => "media_decode_failed",
    // search and generation
    InvalidKind => "invalid_kind",
    InvalidRatio => "invalid_ratio",
    InvalidLimit => "invalid_limit",
    SearchFailed => "search_failed",
    // notification/send
    SubjectTooLong => "subject_too_long",
    MessageTooLong => "message_too_long",
    InvalidParseMode => "invalid_parse_mode",
    ConflictingMedia => "conflicting_media",
    InvalidPhotoUrl => "invalid_photo_url",
    InvalidVideoUrl => "invalid_video_url",
    NoDeliveryChannel => "no_delivery_channel",
    RateLimited => "rate_limited",
    TooManyJobs => "too_many_jobs",
    QueueFull => "queue_full",
    NotificationSendFailed => "notification_send_failed",
    // client_link/send
    InvalidLinkType => "invalid_link_type",
    InvalidChannels => "invalid_channels",
    ClientLinkFailed => "client_link_failed",
    // error/report
    ErrorMessageTooLong => "error_message_too_long",
    ModuleTooLong => "module_too_long",
    InvalidModule => "invalid_module",
    InvalidContext => "invalid_context",
    ErrorReportFailed => "error_report_failed",
    // search_broll, create_image
    PromptTooLong => "prompt_too_long",
    ImageGenerationFailed => "image_generation_failed",
    // publishing: publish, channel groups, connections, platform settings, analytics
    InvalidPublishInput => "invalid_publish_input",
    InvalidPlatforms => "invalid_platforms",
    // `channel_group` not an integer of at least 0 (400) / the group missing, or the primary
    // group on rename or delete (404): the spec gives one code two statuses, so two variants
    // share its wire name.
    InvalidChannelGroup => "invalid_channel_group",
    ChannelGroupNotFound => "invalid_channel_group",
    NoPlatformsConnected => "no_platforms_connected",
    PublishNotReady => "publish_not_ready",
    // An external `video_url` of `publish` not downloadable (400; modify_scene's
    // `download_failed` is an upstream 502).
    PublishDownloadFailed => "download_failed",
    PublishFailed => "publish_failed",
    InvalidScheduledDate => "invalid_scheduled_date",
    InvalidTimezone => "invalid_timezone",
    InvalidLabel => "invalid_label",
    InvalidSettings => "invalid_settings",
    InvalidPeriod => "invalid_period",
    InvalidDate => "invalid_date",
    ChannelGroupLimit => "channel_group_limit",
    ProfileLimitReached => "profile_limit_reached",
    UpstreamUsernameTaken => "upstream_username_taken",
    ConnectFailed => "connect_failed",
    // providers (connectors)
    UpstreamFailed => "upstream_failed",
    // public media origin
    FileExpired => "file_expired",
    // server
    Internal => "internal_error",
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

impl From<crate::core::store::StoreError> for Error {
    fn from(e: crate::core::store::StoreError) -> Self {
        Error::internal(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
