//! `POST /v1/production_plan/add`: a validated [`AddPlanRequest`] becomes a [`PlanEntry`] in one
//! transaction, which also checks that the topic is free.
//!
//! Topic ids are one namespace with video jobs. An entry of the account under the requested
//! `topic_id` is updated (its idea fields replaced, its scripts kept); scripts sent for a topic
//! that already has a video or scripts answer 409 `topic_exists`, and so does a topic id in use
//! by another account.

use crate::plan::add_request::{AddPlanRequest, ScriptInput};
use crate::plan::entry::{PLAN, PlanEntry, PlanSource, Script, WorkflowPhase};
use crate::plan::templates::{Template, Templates};
use foundation::error::{Code, Error, Result};
use foundation::ids;
use foundation::model::{Account, Language};
use foundation::store::Store;
use foundation::time::{now, now_nanos};

fn topic_exists(message: &str) -> Error {
    Error::new(Code::TopicExists, message).param("topic_id")
}

/// The template the request starts from: the named one when `source` is `template`. A named
/// template must exist in the library, whatever the source (400 `invalid_template`).
pub fn template_of<'a>(
    templates: &'a Templates,
    req: &AddPlanRequest,
) -> Result<Option<&'a Template>> {
    let Some(id) = req.template.as_deref() else {
        return Ok(None);
    };
    let t = templates.get(id).ok_or_else(|| {
        Error::new(
            Code::InvalidTemplate,
            "No template with this id exists; GET /v1/foundation_videos lists them.",
        )
        .param("template")
    })?;
    Ok((req.source == Some(PlanSource::Template)).then_some(t))
}

/// Adds (or updates) `account`'s entry and returns it as stored. With a `template` (see
/// [`template_of`]) and no `scripts`, the entry is seeded with the template's script for the
/// idea in the template's format, so it is Script ready and `create_video` with its topic id
/// follows the template.
pub fn add(
    store: &Store,
    account: &Account,
    req: AddPlanRequest,
    template: Option<&Template>,
) -> Result<PlanEntry> {
    let req = seed_from_template(req, template);
    let topic = req.topic_id.clone().unwrap_or_else(ids::topic_id);
    let t = now();
    store.write(|tx| -> Result<PlanEntry> {
        let existing: Option<PlanEntry> = tx.record(PLAN, &topic)?;
        let job = tx.job(&topic)?;
        let foreign = existing.as_ref().is_some_and(|e| e.account != account.name)
            || job.as_ref().is_some_and(|j| j.account != account.name);
        if foreign {
            return Err(topic_exists("This topic id is already in use."));
        }
        if req.scripts.is_some() {
            if job.is_some() {
                return Err(topic_exists(
                    "This topic already has a video; its scripts cannot be replaced.",
                ));
            }
            if existing.as_ref().is_some_and(PlanEntry::script_ready) {
                return Err(topic_exists("This topic already has scripts."));
            }
        }
        let entry = entry_from(req, account, &topic, existing, t);
        tx.put_record(PLAN, &topic, &entry)?;
        Ok(entry)
    })
}

/// `req` with the template's script as its one script, when a template is given and the
/// request brings no scripts of its own.
fn seed_from_template(mut req: AddPlanRequest, template: Option<&Template>) -> AddPlanRequest {
    if let Some(t) = template
        && req.scripts.is_none()
    {
        let material = [Some(req.idea_text.as_str()), req.description.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(". ");
        req.scripts = Some(vec![ScriptInput {
            format: t.format,
            text: t.script(&material),
        }]);
        req.recommended_format = Some(t.format);
    }
    req
}

/// The entry a request makes, over the `existing` entry of the same topic if any.
fn entry_from(
    req: AddPlanRequest,
    account: &Account,
    topic: &str,
    existing: Option<PlanEntry>,
    t: i64,
) -> PlanEntry {
    let source = req.source.unwrap_or(PlanSource::Idea);
    let workflow_phase = if source == PlanSource::Template && req.template.is_some() {
        WorkflowPhase::AbRoll
    } else {
        WorkflowPhase::Queued
    };
    let (scripts, recommended_format, language) = match req.scripts {
        Some(inputs) => {
            let first = inputs[0].format;
            let mut scripts: Vec<Script> = inputs
                .into_iter()
                .map(|s| Script {
                    format: s.format,
                    text: s.text,
                })
                .collect();
            scripts.sort_by_key(|s| s.format);
            let language = req.language.unwrap_or(Language::English);
            (
                scripts,
                Some(req.recommended_format.unwrap_or(first)),
                language,
            )
        }
        None => match &existing {
            Some(e) => (e.scripts.clone(), e.recommended_format, e.language),
            None => (Vec::new(), None, req.language.unwrap_or(Language::English)),
        },
    };
    let created_at = req
        .week_start
        .or(existing.as_ref().map(|e| e.created_at))
        .unwrap_or(t);
    PlanEntry {
        topic_id: topic.to_string(),
        account: account.name.clone(),
        idea_text: req.idea_text,
        description: req.description,
        industry: req.industry.or_else(|| account.industry.clone()),
        source,
        template: req.template,
        sub_industry: req.sub_industry,
        core_topics: req.core_topics,
        peripheral_topics: req.peripheral_topics,
        short_headline: req.short_headline,
        recommended: req.recommended.unwrap_or(false),
        scripts,
        recommended_format,
        language,
        workflow_phase,
        created_at,
        updated_at: t,
        seq: now_nanos(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::entry::ScriptFormat;
    use foundation::model::Plan;

    fn account(name: &str) -> Account {
        Account {
            name: name.into(),
            plan: Plan::Paid,
            credits: 0,
            created_at: 0,
            email: None,
            industry: Some("solar".into()),
            ..Account::default()
        }
    }

    fn with_scripts(topic: &str, formats: &[ScriptFormat]) -> AddPlanRequest {
        AddPlanRequest {
            idea_text: "idea".into(),
            topic_id: Some(topic.into()),
            scripts: Some(
                formats
                    .iter()
                    .map(|f| ScriptInput {
                        format: *f,
                        text: format!("{f:?} script"),
                    })
                    .collect(),
            ),
            ..AddPlanRequest::default()
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb")).unwrap();
        (dir, store)
    }

    #[test]
    fn scripts_are_kept_in_the_fixed_order_and_the_first_one_is_the_master() {
        let (_dir, store) = store();
        let req = with_scripts("wcA", &[ScriptFormat::Mb, ScriptFormat::Qa]);
        let e = add(&store, &account("a"), req, None).unwrap();
        assert_eq!(e.formats(), vec![ScriptFormat::Qa, ScriptFormat::Mb]);
        assert_eq!(e.recommended_format, Some(ScriptFormat::Mb));
        assert_eq!(e.master_script().unwrap().text, "Mb script");
        assert_eq!(e.industry.as_deref(), Some("solar"));
        assert_eq!(e.workflow_phase, WorkflowPhase::Queued);
    }

    #[test]
    fn a_template_entry_is_seeded_with_the_template_script_in_its_format() {
        let (_dir, store) = store();
        let lib =
            Templates::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets"))
                .unwrap();
        let req = AddPlanRequest {
            idea_text: "Why solar pays off in Texas".into(),
            source: Some(PlanSource::Template),
            template: Some("ve-solar-savings".into()),
            ..AddPlanRequest::default()
        };
        let t = template_of(&lib, &req).unwrap();
        let e = add(&store, &account("a"), req, t).unwrap();
        assert_eq!(e.workflow_phase, WorkflowPhase::AbRoll);
        assert_eq!(e.recommended_format, Some(ScriptFormat::Ve));
        let master = &e.master_script().unwrap().text;
        assert!(master.starts_with("Most homeowners guess"), "{master}");
        assert!(master.contains("Why solar pays off in Texas"), "{master}");
        let unknown = AddPlanRequest {
            template: Some("no-such-template".into()),
            ..AddPlanRequest::default()
        };
        let err = template_of(&lib, &unknown).unwrap_err();
        assert_eq!(
            (err.code, err.param.as_deref()),
            (Code::InvalidTemplate, Some("template"))
        );
    }

    #[test]
    fn scripts_for_a_topic_with_scripts_or_another_owner_are_refused() {
        let (_dir, store) = store();
        add(
            &store,
            &account("a"),
            with_scripts("wcA", &[ScriptFormat::Ve]),
            None,
        )
        .unwrap();
        let again = add(
            &store,
            &account("a"),
            with_scripts("wcA", &[ScriptFormat::Cs]),
            None,
        );
        assert_eq!(again.unwrap_err().code, Code::TopicExists);
        let idea_only = AddPlanRequest {
            idea_text: "new words".into(),
            topic_id: Some("wcA".into()),
            ..AddPlanRequest::default()
        };
        let other = add(&store, &account("b"), idea_only.clone(), None);
        assert_eq!(other.unwrap_err().code, Code::TopicExists);
        // The owner may update the idea; the scripts stay.
        let e = add(&store, &account("a"), idea_only, None).unwrap();
        assert_eq!(
            (e.idea_text.as_str(), e.script_ready()),
            ("new words", true)
        );
    }

    #[test]
    fn a_template_entry_with_its_template_starts_in_ab_roll() {
        let (_dir, store) = store();
        let req = AddPlanRequest {
            idea_text: "idea".into(),
            source: Some(PlanSource::Template),
            template: Some("t".into()),
            week_start: Some(1_000),
            ..AddPlanRequest::default()
        };
        let e = add(&store, &account("a"), req, None).unwrap();
        assert_eq!(
            (e.workflow_phase, e.created_at),
            (WorkflowPhase::AbRoll, 1_000)
        );
        assert!(ids::is_topic_id(&e.topic_id));
    }
}
