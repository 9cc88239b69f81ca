//! The narration a mix is made of, read from its start for each pass of the mix and never
//! held whole: the scenes' WAV files back to back ([`Narration`]), or samples in memory. It
//! is mono; the mix puts it in the middle of the stereo image (`super::Centred`).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use compositor::media::SAMPLE_RATE;

use super::loudness::Signal;
use foundation::document::VideoDocument;
use foundation::error::Code;
use foundation::jobs::JobFailure;

/// A mono signal that can be read from its start any number of times; a mix of it is made
/// on a thread of its own (`render::in_spare_time`), hence `Send`.
pub trait Replay: Send + Sync {
    /// A reader from the start (mono).
    fn open(&self) -> Box<dyn Signal + '_>;
    /// Its length in samples.
    fn sample_count(&self) -> usize;
}

/// The scenes' narration back to back, sample-accurately, at [`SAMPLE_RATE`]: each scene
/// gives exactly its duration (cut, or padded with silence), so audio and frames line up.
pub struct Narration {
    /// Each scene's file and its length in samples.
    scenes: Vec<(PathBuf, usize)>,
}

impl Narration {
    /// `doc`'s narration, its files under `dir`; each is opened and checked (48 kHz mono
    /// 16-bit) here, so a file missing or of another format fails now, naming its scene.
    pub fn of(doc: &VideoDocument, dir: &Path) -> Result<Narration, JobFailure> {
        let mut scenes = Vec::with_capacity(doc.segments.len());
        for s in &doc.segments {
            let path = dir.join(&s.audio_file);
            let unreadable = || {
                JobFailure::new(
                    Code::RenderFailed,
                    format!("The narration of scene {} could not be read.", s.id),
                )
            };
            let reader = hound::WavReader::open(&path).map_err(|e| unreadable().because(e))?;
            let spec = reader.spec();
            if spec.sample_rate != SAMPLE_RATE || spec.channels != 1 || spec.bits_per_sample != 16 {
                return Err(unreadable().because(format!("{spec:?} is not 48 kHz mono 16-bit")));
            }
            let want = (s.duration * f64::from(SAMPLE_RATE)).round() as usize;
            scenes.push((path, want));
        }
        Ok(Narration { scenes })
    }
}

impl Replay for Narration {
    fn open(&self) -> Box<dyn Signal + '_> {
        Box::new(Reader {
            scenes: &self.scenes,
            next: 0,
            wav: None,
            left: 0,
            pcm: Vec::new(),
        })
    }

    fn sample_count(&self) -> usize {
        self.scenes.iter().map(|(_, n)| n).sum()
    }
}

/// Reads [`Narration`]'s files one after another.
struct Reader<'a> {
    scenes: &'a [(PathBuf, usize)],
    /// The scene to open next.
    next: usize,
    /// The open scene's file (`None` past its end: silence).
    wav: Option<hound::WavReader<BufReader<File>>>,
    /// Samples the open scene still gives.
    left: usize,
    pcm: Vec<i16>,
}

impl Reader<'_> {
    /// Opens the next scene; false after the last.
    fn advance(&mut self) -> bool {
        let Some((path, want)) = self.scenes.get(self.next) else {
            return false;
        };
        self.next += 1;
        self.left = *want;
        self.wav = hound::WavReader::open(path)
            .inspect_err(|e| {
                // Checked by `Narration::of`: only a file changed since reads as silence.
                tracing::warn!(path = %path.display(), error = %e, "narration unreadable");
            })
            .ok();
        true
    }
}

impl Signal for Reader<'_> {
    fn channels(&self) -> usize {
        1
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        let mut n = 0;
        while n < out.len() {
            if self.left == 0 && !self.advance() {
                break;
            }
            let take = (out.len() - n).min(self.left);
            self.pcm.clear();
            if let Some(wav) = self.wav.as_mut() {
                self.pcm
                    .extend(wav.samples::<i16>().take(take).map_while(Result::ok));
            }
            // A file shorter than its scene: silence for the rest.
            self.pcm.resize(take, 0);
            for (o, &s) in out[n..n + take].iter_mut().zip(&self.pcm) {
                *o = f32::from(s) / 32768.0;
            }
            n += take;
            self.left -= take;
        }
        n
    }
}

impl<T: Replay + ?Sized> Replay for &T {
    fn open(&self) -> Box<dyn Signal + '_> {
        (**self).open()
    }

    fn sample_count(&self) -> usize {
        (**self).sample_count()
    }
}

/// Narration in memory.
impl Replay for [i16] {
    fn open(&self) -> Box<dyn Signal + '_> {
        Box::new(Pcm(self))
    }

    fn sample_count(&self) -> usize {
        self.len()
    }
}

/// 16-bit samples in memory as a [`Signal`].
struct Pcm<'a>(&'a [i16]);

impl Signal for Pcm<'_> {
    fn channels(&self) -> usize {
        1
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        let n = out.len().min(self.0.len());
        for (o, &s) in out.iter_mut().zip(&self.0[..n]) {
            *o = f32::from(s) / 32768.0;
        }
        self.0 = &self.0[n..];
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(path: &Path, samples: impl Iterator<Item = i16>) {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: SAMPLE_RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(path, spec).unwrap();
        for s in samples {
            w.write_sample(s).unwrap();
        }
        w.finalize().unwrap();
    }

    #[test]
    fn each_scene_gives_exactly_its_length_whatever_the_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.wav"), dir.path().join("b.wav"));
        wav(&a, (0..1000).map(|_| 1000));
        wav(&b, (0..2000).map(|_| -2000));
        // a is padded with silence to 1500 samples, b cut to 1200.
        let narration = Narration {
            scenes: vec![(a, 1500), (b, 1200)],
        };
        assert_eq!(narration.sample_count(), 2700);
        for block in [1, 700, 4096] {
            let mut reader = narration.open();
            let mut all = Vec::new();
            let mut buf = vec![0.0f32; block];
            loop {
                let n = reader.read(&mut buf);
                all.extend_from_slice(&buf[..n]);
                if n < block {
                    break;
                }
            }
            assert_eq!(all.len(), 2700, "blocks of {block}");
            let value = |i: usize| (all[i] * 32768.0).round() as i16;
            assert_eq!((value(0), value(999)), (1000, 1000));
            assert_eq!((value(1000), value(1499)), (0, 0));
            assert_eq!((value(1500), value(2699)), (-2000, -2000));
        }
    }
}
