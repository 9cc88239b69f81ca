//! `POST /v1/typography` and `GET /v1/typography/{id}`: validation, credits, the design job and
//! its result record.
//!
//! A call is validated (every limit of the spec, with a 400 naming the field), charged one credit
//! in one store transaction (402 `credit_exhausted` when none is left), then designed on a
//! blocking thread: the `typography` crate lays out and outlines the text, the compositor
//! rasterises each object's SVG and the whole composition into transparent PNGs. The caller
//! waits up to `wait` seconds; the answer is the finished result or the same record with
//! `status: processing`, which `GET …?wait=` polls. A failed design refunds the credit.
//!
//! Files: `data_dir/public/typo/{id}-{token}/` holds `object-{n}.svg`, `object-{n}.png`,
//! `composition.svg` (every object as a `data-wc-object` group, ready for svg2spec) and
//! `preview.png`, served under `{origin_url}/typo/…` with an unguessable token. They are part of
//! the result (callers place them in their own designs), so they do not expire with the 900 s
//! temporary files; they live as long as the data directory. Result records are JSON files in
//! `data_dir/typography/{id}.json` (written atomically), so results survive restarts.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use compositor::svg2spec;
use serde_json::{Value, json};
use typography::design::{self, Cta, DesignInput, FontSet, Role};

use foundation::blocking;
use foundation::config::Settings;
use foundation::error::{Code, Error};
use foundation::model::Account;
use foundation::store::Store;
use foundation::{accounts, ids, time};

/// Credits one call costs.
pub(crate) const COST: i64 = 1;

use super::typography_request::TypographyRequest;
use super::typography_request::{
    BrandApplied, Canvas, DesignBox, TypographyError, TypographyObject, TypographyResult,
    TypographyStatus,
};

/// A typography id: `typo_` + 24 hex.
pub(crate) fn typography_id() -> String {
    format!("typo_{}{}", ids::file_token(), &ids::file_token()[..8])
}

fn is_typography_id(id: &str) -> bool {
    id.strip_prefix("typo_")
        .is_some_and(|r| r.len() == 24 && r.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A job in flight: its account and a channel that carries the finished record.
/// Where a job's finished record is announced.
type Done = tokio::sync::watch::Receiver<Option<TypographyResult>>;

struct Running {
    account: String,
    done: tokio::sync::watch::Receiver<Option<TypographyResult>>,
}

/// Fonts and rasteriser options, loaded once.
struct Tools {
    fonts: FontSet,
    svg: svg2spec::Options,
}

/// The typography service: one per server.
pub struct Typography {
    settings: Arc<Settings>,
    store: Arc<Store>,
    tools: OnceLock<Result<Arc<Tools>, String>>,
    running: Mutex<HashMap<String, Running>>,
}

/// A result: the response body and whether the job has finished.
pub struct Outcome {
    pub body: TypographyResult,
    pub finished: bool,
}

impl Outcome {
    /// The outcome a record stands for: finished unless it still says `processing`.
    fn of(body: TypographyResult) -> Outcome {
        let finished = body.status != TypographyStatus::Processing;
        Outcome { body, finished }
    }
}

impl Typography {
    pub fn new(settings: Arc<Settings>, store: Arc<Store>) -> Typography {
        Typography {
            settings,
            store,
            tools: OnceLock::new(),
            running: Mutex::new(HashMap::new()),
        }
    }

    fn tools(&self) -> Result<Arc<Tools>, Error> {
        let dir = self.settings.assets_dir.join("fonts");
        self.tools
            .get_or_init(|| {
                let fonts = FontSet::from_dir(&dir).map_err(|e| e.to_string())?;
                Ok(Arc::new(Tools {
                    fonts,
                    svg: svg2spec::Options {
                        fontdb: svg2spec::font_db(&dir),
                        limits: svg2spec::Limits::default(),
                        file_prefix: String::new(),
                    },
                }))
            })
            .clone()
            .map_err(Error::internal)
    }

    fn record_path(&self, id: &str) -> PathBuf {
        self.settings
            .data_dir
            .join("typography")
            .join(format!("{id}.json"))
    }

    fn save(&self, id: &str, account: &str, body: &TypographyResult) -> Result<(), Error> {
        let rec = json!({ "account": account, "response": body });
        foundation::files::write_atomic(&self.record_path(id), rec.to_string().as_bytes())
            .map_err(Error::internal)
    }

    fn load(&self, id: &str) -> Option<(String, TypographyResult)> {
        let bytes = std::fs::read(self.record_path(id)).ok()?;
        let mut rec: Value = serde_json::from_slice(&bytes).ok()?;
        let account = rec.get("account")?.as_str()?.to_string();
        let body = serde_json::from_value(rec.get_mut("response")?.take()).ok()?;
        Some((account, body))
    }

    /// Charges the call, starts the design and waits up to `req.wait` seconds for it.
    pub async fn submit(
        self: &Arc<Self>,
        account: &Account,
        req: TypographyRequest,
    ) -> Result<Outcome, Error> {
        let wait = req.wait;
        let (this, account) = (self.clone(), account.clone());
        // Laying out, the charge (a redb commit) and the first record: off the reactor.
        let (id, rx) = blocking::run(move || this.start(&account, req)).await?;
        self.wait_for(&id, rx, wait).await
    }

    /// Lays the design out, charges it, stores the processing record and starts the job.
    fn start(
        self: &Arc<Self>,
        account: &Account,
        req: TypographyRequest,
    ) -> Result<(String, Done), Error> {
        let tools = self.tools()?;
        // Laying out is quick and tells a text with nothing to set apart before any charge;
        // rasterising and publishing (the slow part) run as the job.
        let design = design_of(&tools, &req, account)?;
        let name = account.name.clone();
        let pricing_url = self.settings.pricing_url();
        let charge = accounts::Charge::credits(COST, &pricing_url);
        let remaining = self
            .store
            .write(|tx| accounts::charge(tx, &name, &charge))?;
        let id = typography_id();
        let body = processing(&id, &req);
        if let Err(e) = self.save(&id, &name, &body) {
            self.refund(&name);
            return Err(e);
        }
        let (tx, rx) = tokio::sync::watch::channel(None);
        self.running.lock().expect("lock").insert(
            id.clone(),
            Running {
                account: name.clone(),
                done: rx.clone(),
            },
        );
        let svc = self.clone();
        let job = (id.clone(), name);
        tokio::spawn(async move {
            let (svc2, id2, base) = (svc.clone(), job.0.clone(), body.clone());
            let result = blocking::spawn(move || svc2.publish(&id2, &tools, &design, base)).await;
            let _ = blocking::spawn(move || svc.finish(&job, body, result, &tx)).await;
        });
        tracing::info!(%id, account = %account.name, credits_remaining = remaining, "typography accepted");
        Ok((id, rx))
    }

    /// Stores the job's outcome (refunding a failure) and wakes its waiters.
    fn finish(
        &self,
        (id, account): &(String, String),
        mut body: TypographyResult,
        result: Result<Result<TypographyResult, String>, tokio::task::JoinError>,
        tx: &tokio::sync::watch::Sender<Option<TypographyResult>>,
    ) {
        let record = match result {
            Ok(Ok(v)) => v,
            Ok(Err(cause)) => {
                tracing::error!(%id, %cause, "typography files could not be made");
                self.refund(account);
                failed(&mut body, "the files could not be written")
            }
            Err(join) => {
                tracing::error!(%id, error = %join, "typography job stopped");
                self.refund(account);
                failed(&mut body, "the design job stopped unexpectedly")
            }
        };
        if let Err(e) = self.save(id, account, &record) {
            tracing::error!(%id, error = %e, "could not store typography result");
        }
        let _ = tx.send(Some(record));
        self.running.lock().expect("lock").remove(id);
    }

    /// The record of `id` for `account`, waiting up to `wait` seconds while it is processing.
    pub async fn get(
        self: &Arc<Self>,
        account: &str,
        id: &str,
        wait: u64,
    ) -> Result<Outcome, Error> {
        let not_found = move |id: &str| {
            Error::new(
                Code::TypographyNotFound,
                format!("No typography result `{id}` on this account."),
            )
            .param("id")
        };
        if !is_typography_id(id) {
            return Err(not_found(id));
        }
        let running = {
            let map = self.running.lock().expect("lock");
            map.get(id).map(|r| (r.account.clone(), r.done.clone()))
        };
        if let Some((owner, rx)) = running {
            if owner != account {
                return Err(not_found(id));
            }
            return self.wait_for(id, rx, wait).await;
        }
        let (this, account, id) = (self.clone(), account.to_string(), id.to_string());
        blocking::run(move || this.stored(&account, &id)?.ok_or_else(|| not_found(&id))).await
    }

    /// The stored record of `id` when it is `account`'s. A record still processing that no job
    /// runs here was cut off by a restart: it fails now and its credit comes back.
    fn stored(&self, account: &str, id: &str) -> Result<Option<Outcome>, Error> {
        match self.load(id) {
            Some((owner, mut body)) if owner == account => {
                if body.status == TypographyStatus::Processing {
                    let rec = failed(&mut body, "the server restarted while designing");
                    self.refund(account);
                    self.save(id, account, &rec)?;
                    return Ok(Some(Outcome::of(rec)));
                }
                Ok(Some(Outcome::of(body)))
            }
            _ => Ok(None),
        }
    }

    async fn wait_for(
        &self,
        id: &str,
        mut rx: tokio::sync::watch::Receiver<Option<TypographyResult>>,
        wait: u64,
    ) -> Result<Outcome, Error> {
        let _ = tokio::time::timeout(Duration::from_secs(wait), rx.wait_for(|v| v.is_some())).await;
        let done = rx.borrow().clone();
        match done {
            Some(body) => Ok(Outcome::of(body)),
            // The processing record is stored before the job starts. The job stores its
            // outcome before it wakes the waiters, so the record read here may already be
            // finished: it then answers as finished, never as a 202 that says `completed`.
            None => self
                .load(id)
                .map(|(_, body)| Outcome::of(body))
                .ok_or_else(|| Error::internal(format!("typography record {id} is unreadable"))),
        }
    }

    fn refund(&self, account: &str) {
        let r = self.store.write(|tx| accounts::refund(tx, account, COST));
        if let Err(e) = r {
            tracing::error!(%account, error = %e, "typography credit refund failed");
        }
    }

    /// Rasterises and publishes `d`; returns the completed record, or the internal cause of a
    /// failure (for the log; the record says only what failed).
    fn publish(
        &self,
        id: &str,
        tools: &Tools,
        d: &design::Design,
        mut body: TypographyResult,
    ) -> Result<TypographyResult, String> {
        // Render every object (and the preview) before publishing anything.
        let composition = d.composition_svg();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let mut objects = Vec::new();
        let folder = format!("typo/{id}-{}", ids::file_token());
        let url = |name: &str| format!("{}/{folder}/{name}", self.settings.origin_url);
        for o in &d.objects {
            let svg = o.svg();
            let png = svg2spec::render_png(&svg, &tools.svg).map_err(|e| e.to_string())?;
            let stem = format!("object-{}", o.index + 1);
            objects.push(TypographyObject {
                index: o.index,
                name: o.name.clone(),
                kind: o.kind.as_str().into(),
                text: o.text.clone(),
                svg_url: url(&format!("{stem}.svg")),
                image_url: url(&format!("{stem}.png")),
                r#box: DesignBox {
                    x: f64::from(o.rect.x),
                    y: f64::from(o.rect.y),
                    w: f64::from(o.rect.w),
                    h: f64::from(o.rect.h),
                },
                phase: o.phase,
                start: o.start,
                end: o.end,
                animation: o.animation.into(),
            });
            files.push((format!("{stem}.svg"), svg.into_bytes()));
            files.push((format!("{stem}.png"), png));
        }
        let preview = svg2spec::render_png(&composition, &tools.svg).map_err(|e| e.to_string())?;
        files.push(("preview.png".into(), preview));
        files.push(("composition.svg".into(), composition.into_bytes()));
        let dir = self.settings.data_dir.join("public").join(&folder);
        for (name, bytes) in &files {
            foundation::files::write_atomic(&dir.join(name), bytes)
                .map_err(|e| format!("writing {name}: {e}"))?;
        }
        body.status = TypographyStatus::Completed;
        body.lines = d.lines.clone();
        body.style = Some(d.style.as_str().into());
        body.preview_url = Some(url("preview.png"));
        body.composition_url = Some(url("composition.svg"));
        body.objects = objects;
        body.duration = Some(d.duration);
        body.brand = Some(BrandApplied {
            colors: d.colors.iter().map(|c| c.hex()).collect(),
            applied: d.brand_applied,
        });
        body.warnings = Some(d.warnings.clone());
        body.truncated = Some(d.truncated);
        Ok(body)
    }
}

/// Lays out `req` for `account` (whose profile fills a `cta_poster` without `cta`). A text with
/// nothing the fonts can set is the client's: 400 on the field the copy came from.
fn design_of(
    tools: &Tools,
    req: &TypographyRequest,
    account: &Account,
) -> Result<design::Design, Error> {
    let profile_cta;
    let cta = match (&req.cta, req.role) {
        (Some(c), _) => Some(c),
        (None, Role::CtaPoster) => {
            profile_cta = Cta {
                company_name: account.name.clone(),
                phone: String::new(),
                email: account.email.clone().unwrap_or_default(),
            };
            Some(&profile_cta)
        }
        _ => None,
    };
    let input = DesignInput {
        role: Some(req.role),
        text: &req.text,
        quote: req.quote.as_deref(),
        words: &req.words,
        duration: req.duration,
        show_narrator: req.show_narrator,
        exact: req.exact,
        colors: &req.colors,
        cta,
        look: req.look.as_deref(),
    };
    design::design(&tools.fonts, &input).map_err(|e| match e {
        design::DesignError::NoText => {
            let param = if req.quote.as_deref().is_some_and(|q| !q.trim().is_empty()) {
                "quote"
            } else {
                "text"
            };
            Error::new(
                Code::MissingField,
                format!("`{param}` has no words the typography fonts can set."),
            )
            .param(param)
        }
        other => Error::internal(other),
    })
}

/// The record of a design just accepted.
fn processing(id: &str, req: &TypographyRequest) -> TypographyResult {
    TypographyResult {
        object: "typography".into(),
        id: id.to_string(),
        status: TypographyStatus::Processing,
        role: req.role.as_str().into(),
        language: req.language.clone(),
        look: req.look.clone(),
        lines: Vec::new(),
        canvas: Canvas::standard(),
        preview_url: None,
        objects: Vec::new(),
        credits_charged: COST,
        created_at: time::iso(time::now()),
        composition_url: None,
        style: None,
        duration: None,
        brand: None,
        warnings: None,
        truncated: None,
        error: None,
    }
}

/// The record marked failed with `message` (the credit was refunded).
fn failed(body: &mut TypographyResult, message: &str) -> TypographyResult {
    body.status = TypographyStatus::Failed;
    body.credits_charged = 0;
    body.error = Some(TypographyError {
        code: Code::TypographyFailed.as_str().into(),
        message: format!("The design could not be made: {message}."),
    });
    body.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_typography_ids() {
        assert!(is_typography_id(&typography_id()));
        assert!(!is_typography_id("typo_xyz"));
    }

    /// A service on embedded defaults over a data dir in `dir`.
    fn service(dir: &std::path::Path) -> Arc<Typography> {
        let settings = foundation::config::Config {
            data_dir: dir.to_path_buf(),
            ..Default::default()
        }
        .finish("127.0.0.1:9".parse().unwrap())
        .unwrap();
        let store = Store::open(&dir.join("db.redb")).unwrap();
        Arc::new(Typography::new(Arc::new(settings), Arc::new(store)))
    }

    /// The record of a design accepted from a real request body, marked `status`.
    fn record(id: &str, status: TypographyStatus) -> TypographyResult {
        let body = json!({ "role": "opening_poster", "text": "Hello" });
        let req = foundation::fields::body::read::<super::super::TypographyBody>(&body).unwrap();
        TypographyResult {
            status,
            ..processing(id, &req)
        }
    }

    /// The job stores its finished record a moment before it wakes the waiters. A poll that
    /// reads the record in that moment answers it as finished (a 200), not as a 202 whose
    /// body says `completed`.
    #[tokio::test]
    async fn a_poll_between_the_jobs_store_and_its_wake_up_is_finished() {
        let dir = tempfile::tempdir().unwrap();
        let svc = service(dir.path());
        let id = typography_id();
        svc.save(&id, "default", &record(&id, TypographyStatus::Completed))
            .unwrap();
        let (_tx, rx) = tokio::sync::watch::channel(None);
        let outcome = svc.wait_for(&id, rx, 0).await.unwrap();
        assert!(outcome.finished);
        assert_eq!(outcome.body.status, TypographyStatus::Completed);
    }

    #[tokio::test]
    async fn a_poll_while_the_job_runs_is_not_finished() {
        let dir = tempfile::tempdir().unwrap();
        let svc = service(dir.path());
        let id = typography_id();
        svc.save(&id, "default", &record(&id, TypographyStatus::Processing))
            .unwrap();
        let (_tx, rx) = tokio::sync::watch::channel(None);
        let outcome = svc.wait_for(&id, rx, 0).await.unwrap();
        assert!(!outcome.finished);
        assert_eq!(outcome.body.status, TypographyStatus::Processing);
    }
}
