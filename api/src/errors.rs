//! The one table from error code to HTTP status, and the error envelope.
//! Every failure — ours or warp's — leaves through [`recover`], so no
//! default rejection text ever reaches a client.

use pipeline::{Code, Error};
use serde_json::json;
use warp::http::StatusCode;
use warp::reject::Reject;
use warp::{Rejection, Reply};

use crate::openapi::ErrorBody;

/// A domain error travelling through warp as a rejection.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl Reject for ApiError {}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

/// Shorthand for handlers: a domain error as a rejection.
pub fn reject(e: Error) -> Rejection {
    warp::reject::custom(ApiError(e))
}

/// The HTTP status of every code. Exhaustive on purpose: a new code does not
/// compile until it has a status here.
pub fn status_of(code: Code) -> StatusCode {
    use Code::*;
    match code {
        RouteNotFound | VideoNotFound | SceneNotFound | TopicNotFound | TypographyNotFound
        | DeliveryNotFound | ChannelGroupNotFound => StatusCode::NOT_FOUND,
        MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        FileExpired => StatusCode::GONE,
        PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        InvalidJson
        | MissingField
        | InvalidField
        | InvalidSource
        | InvalidOutputType
        | InvalidLanguage
        | InvalidVideoLength
        | InvalidResearchEnabled
        | InvalidWaitForRender
        | InvalidMetadata
        | InvalidCallbackUrl
        | ScriptTooShort
        | ScriptTooLong
        | InputTooShort
        | MediaTooLong
        | FileTooLarge
        | UnsupportedMediaUrl
        | InvalidAdjust
        | InvalidFaceless
        | InvalidMusic
        | InvalidId
        | InvalidBy
        | InvalidFieldName
        | InvalidValue
        | MixedFieldFamilies
        | InvalidAction
        | InvalidRole
        | InvalidWords
        | InvalidDuration
        | InvalidWait
        | InvalidBrand
        | InvalidLook
        | TextTooLong
        | QuoteTooLong
        | InvalidContentType
        | InvalidFileData
        | AssetTooLarge
        | UnsupportedAssetType
        | PresignExpired
        | PresignInvalid
        | InvalidKind
        | InvalidRatio
        | InvalidLimit
        | InvalidTopicId
        | InvalidWeekStart
        | InvalidWeekEnd
        | InvalidScripts
        | InvalidRecommendedFormat
        | InvalidPage
        | InvalidCycle
        | InvalidFromRecord
        | InvalidCount
        | InvalidIndustry
        | InvalidTemplate
        | PromptTooLong
        | SubjectTooLong
        | MessageTooLong
        | InvalidParseMode
        | ConflictingMedia
        | InvalidPhotoUrl
        | InvalidVideoUrl
        | NoDeliveryChannel
        | InvalidLinkType
        | InvalidChannels
        | ErrorMessageTooLong
        | ModuleTooLong
        | InvalidModule
        | InvalidContext
        | InvalidPublishInput
        | InvalidPlatforms
        | InvalidChannelGroup
        | NoPlatformsConnected
        | PublishDownloadFailed
        | PublishFailed
        | InvalidScheduledDate
        | InvalidTimezone
        | InvalidLabel
        | InvalidSettings
        | InvalidPeriod
        | InvalidDate => StatusCode::BAD_REQUEST,
        PublishNotReady | ChannelGroupLimit | ProfileLimitReached | UpstreamUsernameTaken => {
            StatusCode::CONFLICT
        }
        ConnectFailed => StatusCode::BAD_GATEWAY,
        RateLimited | TooManyJobs | QueueFull => StatusCode::TOO_MANY_REQUESTS,
        // The spec's 500 case (no email on file) is the only one this server produces.
        ClientLinkFailed => StatusCode::INTERNAL_SERVER_ERROR,
        NotificationSendFailed | ErrorReportFailed => StatusCode::BAD_GATEWAY,
        MissingApiKey | InvalidApiKey => StatusCode::UNAUTHORIZED,
        ReadOnlyLink => StatusCode::FORBIDDEN,
        AccountExpired | CreditExhausted | PlanRequired => StatusCode::PAYMENT_REQUIRED,
        ScenesNotReady | ScriptNotReady | OverlayNotAvailable | EditorRefused | AmbiguousScene
        | PresignUsed | TopicExists => StatusCode::CONFLICT,
        // A layout edit on a scene whose overlay the user disabled: the request is well formed
        // but the scene's state forbids it, like the other state preconditions.
        RemotionSpecDisabled => StatusCode::CONFLICT,
        // The version history has no step that way: the video's state forbids it.
        NothingToUndo | NothingToRedo => StatusCode::CONFLICT,
        Svg2specFailed | NoSvgOverlaySource | MediaDecodeFailed => StatusCode::UNPROCESSABLE_ENTITY,
        ScriptParseFailed
        | TopicFetchFailed
        | DownloadFailed
        | SearchFailed
        | ImageGenerationFailed
        | UpstreamFailed
        | TranscriptionFailed => StatusCode::BAD_GATEWAY,
        SceneGeometryFailed
        | ScreenshotPublishFailed
        | OverlayPublishFailed
        | VideoDataPublishFailed
        | TypographyFailed
        | UploadFailed
        | PresignFailed
        | ReadFailed => StatusCode::INTERNAL_SERVER_ERROR,
        // Job failure codes only appear inside status objects; if one ever
        // reaches the envelope it is a server fault.
        SceneBuildFailed
        | NarrationTooLong
        | RenderFailed
        | MediaSourceUnsupported
        | ContentWriteFailed
        | Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ContentFetchFailed | ContentUnreadable => StatusCode::BAD_GATEWAY,
        MediaFetchFailed => StatusCode::BAD_GATEWAY,
    }
}

/// The error `type` for a status (DESIGN.md §3).
pub fn type_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "invalid_request_error",
        401 => "authentication_error",
        402 => "payment_required",
        403 => "permission_error",
        404 => "not_found",
        405 => "method_not_allowed",
        409 => "precondition_failed",
        410 => "not_found",
        413 => "payload_too_large",
        415 => "invalid_request_error",
        422 => "unprocessable_entity",
        429 => "rate_limit_error",
        502 => "upstream_error",
        _ => "api_error",
    }
}

/// The envelope for a domain error.
pub fn error_reply(e: &Error) -> warp::reply::Response {
    let status = status_of(e.code);
    let error = ErrorBody {
        kind: type_of(status).to_string(),
        code: e.code.as_str().to_string(),
        message: e.message.clone(),
        param: e.param.clone(),
        details: e.details.clone(),
    };
    let request_id = crate::metrics::request_id();
    if let Some(cause) = &e.cause {
        tracing::error!(%request_id, code = %e.code, %cause, "request failed inside the server");
    }
    // Every 429 says when to come back, in its details and in `Retry-After`.
    let retry_after = (status == StatusCode::TOO_MANY_REQUESTS)
        .then(|| e.details.as_ref()?.get("retry_after_seconds")?.as_u64())
        .flatten();
    // `with_given_id` adds `request_id`, completing the `ErrorEnvelope`.
    let mut resp = crate::reply::with_given_id(status, json!({ "error": error }), request_id);
    if let Some(secs) = retry_after {
        resp.headers_mut()
            .insert(warp::http::header::RETRY_AFTER, secs.into());
    }
    resp
}

/// Turns every rejection into the envelope.
pub async fn recover(r: Rejection) -> Result<warp::reply::Response, std::convert::Infallible> {
    let e = if let Some(ApiError(e)) = r.find::<ApiError>() {
        e.clone()
    } else if r.is_not_found() {
        Error::new(Code::RouteNotFound, "No route matches this path.")
    } else if r.find::<warp::reject::MethodNotAllowed>().is_some() {
        Error::new(
            Code::MethodNotAllowed,
            "This route does not accept this HTTP method.",
        )
    } else if r.find::<warp::reject::PayloadTooLarge>().is_some() {
        Error::new(
            Code::PayloadTooLarge,
            "The request body is too large for this route.",
        )
    } else if r.find::<warp::reject::UnsupportedMediaType>().is_some() {
        Error::new(
            Code::UnsupportedMediaType,
            "The request's content type is not supported here.",
        )
    } else if r.find::<warp::reject::InvalidQuery>().is_some() {
        Error::new(
            Code::InvalidField,
            "The query string is not valid for this route.",
        )
    } else if r.find::<warp::reject::LengthRequired>().is_some() {
        Error::new(Code::InvalidJson, "The request needs a body.")
    } else if let Some(h) = r.find::<warp::reject::InvalidHeader>() {
        Error::new(
            Code::InvalidField,
            format!("The `{}` header is not valid.", h.name()),
        )
    } else if let Some(h) = r.find::<warp::reject::MissingHeader>() {
        Error::new(
            Code::MissingField,
            format!("The `{}` header is required.", h.name()),
        )
    } else {
        tracing::error!(rejection = ?r, "unhandled rejection");
        Error::new(
            Code::Internal,
            "The server hit an internal error; try again later.",
        )
    };
    Ok(error_reply(&e).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_status_and_type() {
        for &c in Code::ALL {
            let s = status_of(c);
            assert!(s.is_client_error() || s.is_server_error(), "{c}");
            assert!(!type_of(s).is_empty());
        }
        assert_eq!(
            type_of(status_of(Code::ScenesNotReady)),
            "precondition_failed"
        );
        assert_eq!(
            type_of(status_of(Code::MissingApiKey)),
            "authentication_error"
        );
        assert_eq!(
            type_of(status_of(Code::ScriptTooShort)),
            "invalid_request_error"
        );
    }
}
