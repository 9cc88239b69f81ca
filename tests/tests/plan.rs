//! The production plan black-box: `production_plan/add` with every rule of the spec, a plan
//! entry's master script becoming a video through `create_video {topic_id}`, the plan list,
//! the roadmap after two rendered videos, and `/v1/videos` paging with isolation between
//! accounts.

use std::collections::HashSet;
use std::time::Duration;

use reelsmith_tests::{Daemon, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(300);

fn words(n: usize) -> String {
    vec!["word"; n].join(" ")
}

fn assert_error(code: u16, v: &Value, status: u16, err: &str, param: Option<&str>) {
    assert_eq!(code, status, "{v}");
    assert_eq!(v["error"]["code"], err, "{v}");
    if let Some(p) = param {
        assert_eq!(v["error"]["param"], p, "{v}");
    }
}

#[tokio::test]
async fn production_plan_add_answers_every_validation_code() {
    let d = Daemon::start(BIN, &[]);
    let ok = words(80);
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({}), "missing_field", "idea_text"),
        (json!({"idea_text": " "}), "missing_field", "idea_text"),
        (
            json!({"idea_text": "x", "week_start": "monday"}),
            "invalid_week_start",
            "week_start",
        ),
        (
            json!({"idea_text": "x", "topic_id": "bad-id"}),
            "invalid_topic_id",
            "topic_id",
        ),
        (
            json!({"idea_text": "x", "source": "blog"}),
            "invalid_source",
            "source",
        ),
        (
            json!({"idea_text": "x", "scripts": []}),
            "invalid_scripts",
            "scripts",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "XY", "text": ok}]}),
            "invalid_scripts",
            "scripts[0].format",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "VE", "text": ok}, {"format": "VE", "text": ok}]}),
            "invalid_scripts",
            "scripts[1].format",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "QA"}]}),
            "invalid_scripts",
            "scripts[0].text",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "QA", "text": ok}, {"format": "CS", "text": words(79)}]}),
            "script_too_short",
            "scripts[1].text",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "MB", "text": words(1001)}]}),
            "script_too_long",
            "scripts[0].text",
        ),
        (
            json!({"idea_text": "x", "scripts": [{"format": "MB", "text": ok}], "recommended_format": "POV"}),
            "invalid_recommended_format",
            "recommended_format",
        ),
    ];
    for (body, err, param) in cases {
        let (c, v, _) = d.post("/v1/production_plan/add", &body).await;
        assert_error(c, &v, 400, err, Some(param));
    }
    let (c, v, _) = d.get("/v1/production_plan").await;
    assert_eq!(
        (c, v["total"].as_u64()),
        (200, Some(0)),
        "nothing stored: {v}"
    );

    // Scripts come back in the fixed order; the first one sent is the master by default.
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({
                "idea_text": "Why solar panels pay for themselves", "industry": "energy",
                "topic_id": "wcSolar1", "recommended": true,
                "scripts": [{"format": "MB", "text": words(1000)}, {"format": "VE", "text": ok}],
            }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "production_plan_entry");
    assert_eq!(
        (v["added"].as_bool(), v["topic_id"].as_str()),
        (Some(true), Some("wcSolar1"))
    );
    assert_eq!(v["scripts_attached"], json!(["VE", "MB"]));
    assert_eq!(v["recommended_format"], "MB");
    assert_eq!(
        (v["script_ready"].as_bool(), v["recommended"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(
        (v["workflow_phase"].as_str(), v["industry"].as_str()),
        (Some("queued"), Some("energy"))
    );
    assert_eq!(v["source"], "idea");
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));

    // Scripts again for a topic that has them: 409; an idea without scripts is fine.
    let again = json!({"idea_text": "x", "topic_id": "wcSolar1", "scripts": [{"format": "QA", "text": ok}]});
    let (c, v, _) = d.post("/v1/production_plan/add", &again).await;
    assert_error(c, &v, 409, "topic_exists", Some("topic_id"));

    // A template entry with its template starts in ab_roll, seeded with the template's script.
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Templated idea", "source": "template", "template": "ve-solar-savings"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["workflow_phase"].as_str(), v["source"].as_str()),
        (Some("ab_roll"), Some("template"))
    );
    assert!(v["topic_id"].as_str().unwrap().starts_with("wc"));
    assert_eq!(
        (v["scripts_attached"].clone(), v["script_ready"].as_bool()),
        (json!(["VE"]), Some(true))
    );
    // Without scripts or a template, no script fields.
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Plain idea"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    for absent in [
        "scripts_attached",
        "script_ready",
        "recommended_format",
        "recommended",
    ] {
        assert!(v.get(absent).is_none(), "{absent}: {v}");
    }
    assert!(
        v["industry"].is_null(),
        "the default account has no industry: {v}"
    );
}

#[tokio::test]
async fn a_plan_entry_with_scripts_becomes_a_video_with_its_master_script() {
    let d = Daemon::start(BIN, &[]);
    let master = script(85);
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({
                "idea_text": "Short clips reach people", "recommended_format": "QA",
                "scripts": [{"format": "VE", "text": script(120)}, {"format": "QA", "text": master}],
            }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let topic = v["topic_id"].as_str().unwrap().to_string();

    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": "wcNoSuchEntry"}))
        .await;
    assert_error(c, &v, 404, "topic_not_found", Some("topic_id"));
    let (c, idea, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Only an idea"}),
        )
        .await;
    assert_eq!(c, 200, "{idea}");
    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": idea["topic_id"]}))
        .await;
    assert_error(c, &v, 409, "script_not_ready", Some("topic_id"));

    let (c, long, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Long read", "scripts": [{"format": "CS", "text": script(600)}]}),
        )
        .await;
    assert_eq!(c, 200, "{long}");
    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": long["topic_id"]}))
        .await;
    assert_error(c, &v, 400, "script_too_long", Some("topic_id"));

    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": topic}))
        .await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(
        v["id"],
        topic.as_str(),
        "the video takes the entry's topic id"
    );
    let done = d
        .wait_for(&topic, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let tree = d.scene_tree(&topic).await;
    let spoken: Vec<String> = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["text"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let expected: Vec<String> = master.split_whitespace().map(str::to_string).collect();
    assert_eq!(spoken, expected, "the master script is narrated verbatim");

    // One video per topic; scripts for a topic with a video are refused.
    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": topic}))
        .await;
    assert_error(c, &v, 409, "topic_exists", Some("topic_id"));
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "x", "topic_id": topic, "scripts": [{"format": "CS", "text": script(90)}]}),
        )
        .await;
    assert_error(c, &v, 409, "topic_exists", Some("topic_id"));

    // The plan shows the entry as a topic with its video's status, the idea as an idea.
    let (c, plan, _) = d.get("/v1/production_plan").await;
    assert_eq!(c, 200, "{plan}");
    assert_eq!(plan["object"], "production_plan");
    assert_eq!(plan["total"], 3);
    let topics = plan["topics"].as_array().unwrap();
    assert_eq!(topics.len(), 1, "{plan}");
    assert_eq!(topics[0]["topic_id"], topic.as_str());
    assert_eq!(topics[0]["video_status"], "completed");
    assert_eq!(topics[0]["formats"], json!(["VE", "QA"]));
    assert_eq!(topics[0]["script_ready"], true);
    let ideas = plan["ideas"].as_array().unwrap();
    assert_eq!(ideas.len(), 2, "{plan}");
    assert_eq!(ideas[0]["id"], long["topic_id"], "newest first");
    assert_eq!(ideas[1]["id"], idea["topic_id"]);
    assert!(ideas.iter().all(|i| i.get("video_status").is_none()));
}

#[tokio::test]
async fn create_video_with_a_template_follows_it_and_refuses_unknown_or_misplaced_ones() {
    let d = Daemon::start(BIN, &[]);
    let idea = "Solar panels in Texas pay back in about six years.";
    for (body, code, param) in [
        (
            json!({"source": "idea", "idea_text": idea, "template": "no-such-template"}),
            "invalid_template",
            "template",
        ),
        (
            json!({"source": "blog", "blog_text": words(40), "template": "ve-solar-savings"}),
            "invalid_template",
            "template",
        ),
        (
            json!({"source": "idea", "idea_text": idea, "template": "ve-solar-savings", "output_type": "text"}),
            "invalid_output_type",
            "output_type",
        ),
    ] {
        let (c, v, _) = d.post("/v1/create_video", &body).await;
        assert_error(c, &v, 400, code, Some(param));
    }
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"source": "idea", "idea_text": idea, "template": "ve-solar-savings"}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let topic = v["id"].as_str().unwrap().to_string();
    let done = d
        .wait_for(&topic, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let tree = d.scene_tree(&topic).await;
    let segments = tree["segments"].as_array().unwrap();
    let first = segments[0]["text"].as_str().unwrap();
    let last = segments.last().unwrap()["text"].as_str().unwrap();
    assert!(
        first.starts_with("Most homeowners guess their solar savings wrong"),
        "{first}"
    );
    assert!(last.ends_with("Book a free roof check."), "{last}");
}

#[tokio::test]
async fn a_template_entry_becomes_a_video_that_follows_the_template() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "x", "source": "template", "template": "no-such-template"}),
        )
        .await;
    assert_error(c, &v, 400, "invalid_template", Some("template"));
    let (c, v, _) = d.get("/v1/foundation_videos?industry=solar").await;
    assert_eq!(c, 200, "{v}");
    let template = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "ve-solar-savings")
        .expect("listed")
        .clone();
    let (c, entry, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Solar panels in Texas pay back in about six years.",
                    "source": "template", "template": "ve-solar-savings"}),
        )
        .await;
    assert_eq!(c, 200, "{entry}");
    assert_eq!(
        (
            entry["workflow_phase"].as_str(),
            entry["recommended_format"].as_str()
        ),
        (Some("ab_roll"), template["group"].as_str()),
        "{entry}"
    );
    let topic = entry["topic_id"].as_str().unwrap().to_string();
    let (c, v, _) = d
        .post("/v1/create_video", &json!({"topic_id": topic}))
        .await;
    assert_eq!(c, 202, "{v}");
    let done = d
        .wait_for(&topic, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let tree = d.scene_tree(&topic).await;
    let spoken: Vec<String> = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_string())
        .collect();
    let all = spoken.join(" ");
    // The template's scenes in its order, brackets dropped, with the idea after the hook.
    let lines: Vec<String> = template["scenes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().replace(['[', ']'], ""))
        .collect();
    let mut at = 0;
    for line in &lines {
        let line = line.trim_end_matches('.');
        let found = all[at..]
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} in {all}"));
        at += found + line.len();
    }
    assert!(all.contains("Solar panels in Texas pay back"), "{all}");
    assert!(
        spoken[0].starts_with(lines[0].trim_end_matches('.')),
        "{spoken:?}"
    );
}

#[tokio::test]
async fn the_plan_lists_entries_by_page_and_week() {
    let d = Daemon::start(BIN, &[]);
    let week = 1_717_372_800_i64; // Monday 2024-06-03 00:00 UTC
    for i in 0..25 {
        let (c, v, _) = d
            .post(
                "/v1/production_plan/add",
                &json!({"idea_text": format!("Idea number {i}"), "week_start": week + i * 3600}),
            )
            .await;
        assert_eq!(c, 200, "{v}");
    }
    let (_, p0, _) = d.get("/v1/production_plan").await;
    let (_, p1, _) = d.get("/v1/production_plan?page=1").await;
    assert_eq!(
        (p0["total"].as_u64(), p1["total"].as_u64()),
        (Some(25), Some(25))
    );
    assert_eq!(p0["ideas"].as_array().unwrap().len(), 20);
    assert_eq!(p1["ideas"].as_array().unwrap().len(), 5);
    assert_eq!(p0["ideas"][0]["title"], "Idea number 24", "newest first");
    assert_eq!(p1["ideas"][4]["title"], "Idea number 0");
    assert_eq!(p0["ideas"][0]["created_at"], "2024-06-04T00:00:00Z");
    let (_, w, _) = d
        .get(&format!(
            "/v1/production_plan?week_start={}&week_end={}",
            week + 10 * 3600,
            week + 12 * 3600
        ))
        .await;
    assert_eq!(w["total"], 3, "{w}");
    assert_eq!(
        (w["week_start"].as_i64(), w["page"].as_u64()),
        (Some(week + 36_000), Some(0))
    );
    for (q, err, param) in [
        ("page=-1", "invalid_page", "page"),
        ("page=two", "invalid_page", "page"),
        ("week_start=x", "invalid_week_start", "week_start"),
        ("week_start=10&week_end=5", "invalid_week_end", "week_end"),
    ] {
        let (c, v, _) = d.get(&format!("/v1/production_plan?{q}")).await;
        assert_error(c, &v, 400, err, Some(param));
    }
}

#[tokio::test]
async fn the_roadmap_counts_two_videos_rendered_this_week() {
    let mut d = Daemon::start(BIN, &[]);
    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--weekly-quota",
        "2",
    ]);
    let (c, r, _) = d.get("/v1/roadmap").await;
    assert_eq!(c, 200, "{r}");
    assert_eq!(
        (r["object"].as_str(), r["cycle"].as_i64()),
        (Some("roadmap"), Some(1))
    );
    assert_eq!(
        (r["weekly_quota"].as_u64(), r["total_slots"].as_u64()),
        (Some(2), Some(8))
    );
    assert_eq!(
        (r["total_completed"].as_u64(), r["streak"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(r["current_week"], 1, "the account was created this week");

    // One video from a plan entry, one straight from a script; both rendered.
    let (c, e, _) = d
        .post(
            "/v1/production_plan/add",
            &json!({"idea_text": "Planned clip", "scripts": [{"format": "POV", "text": script(80)}]}),
        )
        .await;
    assert_eq!(c, 200, "{e}");
    let planned = e["topic_id"].as_str().unwrap().to_string();
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"topic_id": planned, "output_type": "video", "faceless": true}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"script_text": script(82), "output_type": "video", "faceless": true}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let direct = v["id"].as_str().unwrap().to_string();
    for id in [&planned, &direct] {
        let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
        assert!(done["result"]["video_url"].is_string(), "{done}");
    }

    let (c, r, _) = d.get("/v1/roadmap?cycle=1").await;
    assert_eq!(c, 200, "{r}");
    assert_eq!(r["total_completed"], 2, "{r}");
    assert_eq!(r["streak"], 1, "this week met the quota: {r}");
    let week = &r["weeks"][0];
    assert_eq!(
        (week["week"].as_i64(), week["current"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(
        (week["completed"].as_u64(), week["met_quota"].as_bool()),
        (Some(2), Some(true))
    );
    let filled: HashSet<&str> = week["slots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["topic"]["status"] == "completed")
        .map(|s| s["topic"]["topic_id"].as_str().unwrap())
        .collect();
    assert_eq!(filled, HashSet::from([planned.as_str(), direct.as_str()]));
    assert_eq!(r["weeks"].as_array().unwrap().len(), 4);
    assert!(
        r["weeks"][1]["slots"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["topic"].is_null())
    );

    let (_, next, _) = d.get("/v1/roadmap?cycle=2").await;
    assert_eq!(
        (
            next["total_completed"].as_u64(),
            next["weeks"][0]["week"].as_i64()
        ),
        (Some(0), Some(5))
    );
    for q in ["cycle=0", "cycle=x"] {
        let (c, v, _) = d.get(&format!("/v1/roadmap?{q}")).await;
        assert_error(c, &v, 400, "invalid_cycle", Some("cycle"));
    }
}

#[tokio::test]
async fn videos_page_newest_first_and_only_the_keys_account() {
    // 45 jobs at once: over the default per-account bound of jobs in flight.
    let mut d = Daemon::start(BIN, &[("REELSMITH__QUEUE__MAX_JOBS_PER_ACCOUNT", "100")]);
    let other = d
        .cli_offline(&["keys", "create", "--account", "other"])
        .trim()
        .to_string();
    let mut created = HashSet::new();
    for i in 0..45 {
        let (c, v, _) = d
            .post("/v1/create_video", &json!({"script_text": script(80 + i)}))
            .await;
        assert_eq!(c, 202, "{v}");
        created.insert(v["id"].as_str().unwrap().to_string());
    }
    let mut seen = Vec::new();
    let mut last_created = String::from("~");
    for (from, n) in [(0, 20), (20, 20), (40, 5), (45, 0)] {
        let (c, page, _) = d.get(&format!("/v1/videos?from_record={from}")).await;
        assert_eq!(c, 200, "{page}");
        assert_eq!(page["object"], "list");
        assert_eq!(
            (page["total_count"].as_u64(), page["from_record"].as_u64()),
            (Some(45), Some(from))
        );
        let data = page["data"].as_array().unwrap();
        assert_eq!(data.len(), n, "from {from}");
        for item in data {
            let at = item["created_at"].as_str().unwrap().to_string();
            assert!(at <= last_created, "newest first");
            last_created = at;
            assert_eq!(item["language"], "English");
            assert!(!item["title"].as_str().unwrap().is_empty(), "{item}");
            seen.push(item["id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(seen.len(), 45);
    assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), created);

    // Another account's key sees none of them, and only its own.
    let as_other = |path: &str| d.http.get(d.url(path)).bearer_auth(&other).send();
    let r = reelsmith_tests::split(as_other("/v1/videos").await.unwrap()).await;
    assert_eq!(
        (r.0, r.1["total_count"].as_u64()),
        (200, Some(0)),
        "{}",
        r.1
    );
    let r = d
        .http
        .post(d.url("/v1/create_video"))
        .bearer_auth(&other)
        .json(&json!({"script_text": script(80)}))
        .send()
        .await
        .unwrap();
    let (c, mine, _) = reelsmith_tests::split(r).await;
    assert_eq!(c, 202, "{mine}");
    let (_, list, _) = reelsmith_tests::split(as_other("/v1/videos").await.unwrap()).await;
    assert_eq!(list["total_count"], 1);
    assert_eq!(list["data"][0]["id"], mine["id"]);
    let (_, list, _) = d.get("/v1/videos").await;
    assert_eq!(list["total_count"], 45);
    let (c, v, _) = d.get("/v1/videos?from_record=-3").await;
    assert_error(c, &v, 400, "invalid_from_record", Some("from_record"));
}
