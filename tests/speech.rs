//! A speech connector on 127.0.0.1 that the test controls: an OpenAI-compatible
//! `POST /v1/audio/speech` that answers only once its gate is open, with a WAV of a chosen
//! length per request, or with a chosen error status. With it a test holds a video's build at
//! its voice step (nothing depends on a race), fails a build on purpose, or makes narration as
//! long as it needs without synthesising it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::watch;
use warp::Filter;

/// What every speech request gets once the gate is open.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    /// A mono WAV of this many seconds (a tone).
    Seconds(f64),
    /// This HTTP status with an empty body.
    Status(u16),
}

pub struct SpeechServer {
    /// `host:port`.
    pub addr: String,
    gate: watch::Sender<bool>,
    requests: Arc<AtomicUsize>,
}

impl SpeechServer {
    /// Starts the server with its gate closed when `gated`, open otherwise.
    pub async fn start(answer: Answer, gated: bool) -> SpeechServer {
        let (gate, open) = watch::channel(!gated);
        let requests = Arc::new(AtomicUsize::new(0));
        let wav = match answer {
            Answer::Seconds(s) => Bytes::from(crate::wav_bytes(s, 16_000)),
            Answer::Status(_) => Bytes::new(),
        };
        let seen = requests.clone();
        let route = warp::post()
            .and(warp::path!("v1" / "audio" / "speech"))
            .and(warp::body::bytes())
            .then(move |_body: Bytes| {
                seen.fetch_add(1, Ordering::SeqCst);
                let mut open = open.clone();
                let wav = wav.clone();
                async move {
                    // The sender lives as long as the server; a closed channel only ends a test.
                    let _ = open.wait_for(|o| *o).await;
                    let builder = warp::http::Response::builder();
                    match answer {
                        Answer::Seconds(_) => builder.header("content-type", "audio/wav").body(wav),
                        Answer::Status(s) => builder.status(s).body(Bytes::new()),
                    }
                    .unwrap()
                }
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(warp::serve(route).incoming(listener).run());
        SpeechServer {
            addr,
            gate,
            requests,
        }
    }

    /// The daemon's environment for this connector (it is listed in `fetch.allow`).
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                "REELSMITH__FETCH__ALLOW".into(),
                format!("[\"{}\"]", self.addr),
            ),
            ("REELSMITH__VOICE__PROVIDER".into(), "openai".into()),
            (
                "REELSMITH__VOICE__BASE_URL".into(),
                format!("http://{}/v1", self.addr),
            ),
            ("REELSMITH__VOICE__MODEL".into(), "tts-1".into()),
        ]
    }

    /// Lets every waiting and later request through.
    pub fn open(&self) {
        self.gate.send_replace(true);
    }

    /// Speech requests received so far (answered or held).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// Waits until the daemon has asked for speech at least once: the build is at its voice
    /// step, held there while the gate is closed.
    pub async fn wait_for_request(&self, timeout: Duration) {
        let start = Instant::now();
        while self.requests() == 0 {
            assert!(
                start.elapsed() < timeout,
                "the daemon never asked for speech"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// `env` as the `(&str, &str)` pairs `Daemon::start` takes.
pub fn pairs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}
