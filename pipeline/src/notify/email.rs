//! Email over SMTP with `lettre`: STARTTLS when configured (required, never opportunistic),
//! login when a user is set. The HTML mode sends a plain-text part and the sanitised HTML part.

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart, SinglePart, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::notify::channel::{Channel, Outgoing, Refused, Sender, Sent};
use crate::notify::config::SmtpConfig;
use crate::notify::request::{AttachmentKind, ParseMode};

/// The email channel.
pub struct Email {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    runtime: tokio::runtime::Handle,
}

impl Email {
    /// The channel of `cfg`, or `None` while no SMTP host is configured.
    pub fn new(cfg: &SmtpConfig, runtime: tokio::runtime::Handle) -> Result<Option<Email>, String> {
        if cfg.host.trim().is_empty() {
            return Ok(None);
        }
        let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&cfg.host);
        if cfg.starttls {
            b = b.tls(Tls::Required(tls_parameters(cfg)?));
        }
        b = b
            .port(cfg.port)
            .timeout(Some(Duration::from_secs(cfg.timeout_secs.max(1))));
        if !cfg.user.is_empty() {
            b = b.credentials(Credentials::new(cfg.user.clone(), cfg.pass.clone()));
        }
        let from = cfg.from.parse().map_err(|e| format!("smtp.from: {e}"))?;
        Ok(Some(Email {
            transport: b.build(),
            from,
            runtime,
        }))
    }
}

/// STARTTLS parameters: the system's roots, plus `ca_file` when set.
fn tls_parameters(cfg: &SmtpConfig) -> Result<TlsParameters, String> {
    let mut p = TlsParameters::builder(cfg.host.clone());
    if !cfg.ca_file.is_empty() {
        let pem = std::fs::read(&cfg.ca_file).map_err(|e| format!("smtp.ca_file: {e}"))?;
        p = p.add_root_certificate(
            Certificate::from_pem(&pem).map_err(|e| format!("smtp.ca_file: {e}"))?,
        );
    }
    p.build_rustls().map_err(|e| format!("smtp: {e}"))
}

impl Email {
    fn message(&self, to: Mailbox, msg: &Outgoing) -> Result<Message, String> {
        let media = msg.media.as_ref().map(|m| {
            let what = match m.kind {
                AttachmentKind::Photo => "Photo",
                AttachmentKind::Video => "Video",
            };
            format!("{what}: {}", m.url)
        });
        let builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(msg.subject.clone());
        let built = if msg.parse_mode == Some(ParseMode::Html) {
            let mut text = ammonia::Builder::empty().clean(&msg.message).to_string();
            let mut html = format!("<div>{}</div>", msg.message.replace('\n', "<br>"));
            if let (Some(line), Some(m)) = (&media, &msg.media) {
                text.push_str(&format!("\n\n{line}"));
                let url = ammonia::clean_text(&m.url);
                html.push_str(&format!("<p><a href=\"{url}\">{url}</a></p>"));
            }
            builder.multipart(MultiPart::alternative_plain_html(text, html))
        } else {
            let mut text = msg.message.clone();
            if let Some(line) = &media {
                text.push_str(&format!("\n\n{line}"));
            }
            builder.singlepart(
                SinglePart::builder()
                    .header(ContentType::TEXT_PLAIN)
                    .body(text),
            )
        };
        built.map_err(|e| e.to_string())
    }
}

impl Sender for Email {
    fn channel(&self) -> Channel {
        Channel::Email
    }

    fn send(&self, to: &str, msg: &Outgoing) -> Result<Sent, Refused> {
        let to: Mailbox = to
            .parse()
            .map_err(|e| Refused::Failed("invalid_recipient", format!("email address: {e}")))?;
        let email = self
            .message(to, msg)
            .map_err(|e| Refused::Failed("message_not_built", e))?;
        self.runtime
            .block_on(self.transport.send(email))
            .map(|_| Sent::default())
            .map_err(|e| Refused::Failed("smtp_failed", e.to_string()))
    }
}
