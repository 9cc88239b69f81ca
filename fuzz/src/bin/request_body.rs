//! Request body parsing of every endpoint that reads a JSON body: the first byte picks the
//! endpoint, the rest is the body, parsed as the API does (`serde_json` into a `Value`) and
//! read by that endpoint's typed reader (`foundation::fields::body::read`, or one built on
//! `foundation::fields::Fields`). A reader may refuse anything; it may not panic.

use std::sync::LazyLock;

use foundation::export::ExportVideoRequest;
use foundation::fetch::Fetcher;
use foundation::fields::body;
use foundation::video_data::VideoDataRequest;
use pipeline::content::{CollectIdeasRequest, CreateContentRequest, EnhanceScriptRequest};
use pipeline::design::TypographyBody;
use pipeline::edit::{
    EditSessionRequest, ModifySceneRequest, SceneGeometryRequest, SceneInspectorRequest,
    ScriptApproval,
};
use pipeline::media::{ImageBody, SearchBody};
use pipeline::notify::{ClientLinkBody, ErrorReportBody, NotificationBody};
use pipeline::plan::AddPlanRequest;
use pipeline::publish::{LabelRequest, PublishRequest, SettingsRequest};
use serde_json::Value;
use video::ingest::{CreateVideoJson, UploadAssetRequest};

static FETCHER: LazyLock<Fetcher> = LazyLock::new(|| Fetcher::new(&[], "reelsmith-fuzz"));

/// Reads `body` as endpoint `which` would; `true` when it was accepted.
fn read(which: u8, body: &Value) -> bool {
    match which % 22 {
        0 => body::read::<CreateVideoJson>(body).is_ok(),
        1 => body::read::<ExportVideoRequest>(body).is_ok(),
        2 => body::read::<VideoDataRequest>(body).is_ok(),
        3 => body::read::<UploadAssetRequest>(body).is_ok(),
        4 => body::read::<ModifySceneRequest>(body).is_ok(),
        5 => body::read::<EditSessionRequest>(body).is_ok(),
        6 => body::read::<SceneGeometryRequest>(body).is_ok(),
        7 => body::read::<SceneInspectorRequest>(body).is_ok(),
        8 => body::read::<ScriptApproval>(body).is_ok(),
        9 => body::read::<TypographyBody>(body).is_ok(),
        10 => body::read::<ClientLinkBody>(body).is_ok(),
        11 => body::read::<ErrorReportBody>(body).is_ok(),
        12 => body::read::<NotificationBody>(body)
            .and_then(|n| n.check(&FETCHER))
            .is_ok(),
        13 => body::read::<AddPlanRequest>(body).is_ok(),
        14 => body::read::<LabelRequest>(body).is_ok(),
        15 => body::read::<SettingsRequest>(body).is_ok(),
        16 => body::read::<PublishRequest>(body).is_ok(),
        17 => body::read::<SearchBody>(body).is_ok(),
        18 => body::read::<ImageBody>(body).is_ok(),
        19 => body::read::<CreateContentRequest>(body).is_ok(),
        20 => body::read::<EnhanceScriptRequest>(body).is_ok(),
        _ => body::read::<CollectIdeasRequest>(body).is_ok(),
    }
}

fn main() {
    LazyLock::force(&FETCHER);
    afl::fuzz!(|data: &[u8]| {
        let Some((&which, rest)) = data.split_first() else {
            return;
        };
        if let Ok(body) = serde_json::from_slice::<Value>(rest) {
            read(which, &body);
        }
    });
}
