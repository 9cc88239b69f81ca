//! The voice's child process: ONNX Runtime and the model live there, never in the process that
//! renders.
//!
//! The runtime library is about 20 MB of code and the model about 60 MB; once loaded into a
//! process, the library stays mapped for its life. A render that follows narration in the same
//! process would carry it (its render phase measured 317 MB against 284 MB with espeak-ng
//! alone). So the daemon runs each voice in a child — its own executable with the hidden
//! [`WORKER_COMMAND`] — for the length of one video's narration: started by the first sentence,
//! ended by [`super::Piper`]'s `release`.
//!
//! The protocol is length-prefixed little-endian frames over the child's stdin and stdout, one
//! request and one reply at a time:
//!
//! ```text
//! request: u32 n, n × i64 phoneme ids, 3 × f32 scales
//! reply:   u8 0, u32 a, a × f32 audio, u32 d, d × f32 durations
//!        | u8 1, u32 m, m bytes of UTF-8 error text
//! ```
//!
//! The child serves until its stdin closes (the parent released it, or died).

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::VoiceError;

/// The executable's hidden subcommand that runs [`serve`].
pub const WORKER_COMMAND: &str = "voice-worker";

/// A sentence is at most this many ids (a few thousand in practice): a bound on what a frame
/// may claim before it is read.
const MAX_IDS: u32 = 1 << 20;
/// At most this many samples in a reply (22 050 Hz × 20 minutes).
const MAX_SAMPLES: u32 = 22_050 * 1_200;
const MAX_ERROR_BYTES: u32 = 64 * 1024;

/// One inference: what the child is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub ids: Vec<i64>,
    pub scales: [f32; 3],
}

/// One inference's result: audio at the voice's rate, and the frames each id lasts.
pub type Reply = (Vec<f32>, Vec<f32>);

/// The child side: reads requests from `input` and answers each through `infer` on `output`,
/// until `input` ends.
pub fn serve(
    input: impl Read,
    output: impl Write,
    mut infer: impl FnMut(&Request) -> Result<Reply, VoiceError>,
) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    while let Some(request) = read_request(&mut input)? {
        write_reply(&mut output, &infer(&request))?;
        output.flush()?;
    }
    Ok(())
}

/// The parent side: one running child.
pub struct Worker {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    /// Starts `program voice-worker --runtime R --model M`; its stderr (logs) is the parent's.
    pub fn start(program: &Path, runtime: &Path, model: &Path) -> Result<Worker, VoiceError> {
        let mut child = Command::new(program)
            .arg(WORKER_COMMAND)
            .arg("--runtime")
            .arg(runtime)
            .arg("--model")
            .arg(model)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                VoiceError::Unavailable(format!("voice worker {}: {e}", program.display()))
            })?;
        let stdin = child.stdin.take().map(BufWriter::new);
        let stdout = BufReader::new(child.stdout.take().expect("piped above"));
        Ok(Worker {
            child,
            stdin,
            stdout,
        })
    }

    /// Asks the child for one inference. An I/O error means the child is gone: the caller
    /// drops this worker, and the next sentence starts a new one.
    pub(crate) fn infer(&mut self, request: &Request) -> Result<Reply, VoiceError> {
        let gone = |e: io::Error| VoiceError::Synthesis(format!("voice worker: {e}"));
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| VoiceError::Synthesis("voice worker closed".into()))?;
        write_request(stdin, request).map_err(gone)?;
        stdin.flush().map_err(gone)?;
        read_reply(&mut self.stdout).map_err(gone)?
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Worker {
    /// Closing stdin ends the child's loop; it is then waited for, so no zombie stays.
    fn drop(&mut self) {
        drop(self.stdin.take());
        if self.child.wait().is_err() {
            let _ = self.child.kill();
        }
    }
}

/// The program that hosts a voice: this process, or a child running the daemon's executable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Host {
    /// In this process (library use, unit tests, benches).
    #[default]
    InProcess,
    /// In a child process of this executable (it must dispatch [`WORKER_COMMAND`] to [`serve`]).
    Child(PathBuf),
}

fn write_request(w: &mut impl Write, request: &Request) -> io::Result<()> {
    let n = u32::try_from(request.ids.len())
        .ok()
        .filter(|n| *n <= MAX_IDS)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "sentence too long"))?;
    w.write_all(&n.to_le_bytes())?;
    for id in &request.ids {
        w.write_all(&id.to_le_bytes())?;
    }
    for s in request.scales {
        w.write_all(&s.to_le_bytes())?;
    }
    Ok(())
}

/// `None` at a clean end of input (no byte of a new request).
fn read_request(r: &mut impl Read) -> io::Result<Option<Request>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let n = bounded(u32::from_le_bytes(len), MAX_IDS)?;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let mut b = [0u8; 8];
        r.read_exact(&mut b)?;
        ids.push(i64::from_le_bytes(b));
    }
    let mut scales = [0f32; 3];
    for s in &mut scales {
        *s = read_f32(r)?;
    }
    Ok(Some(Request { ids, scales }))
}

fn write_reply(w: &mut impl Write, reply: &Result<Reply, VoiceError>) -> io::Result<()> {
    match reply {
        Ok((audio, durations)) => {
            w.write_all(&[0])?;
            write_floats(w, audio)?;
            write_floats(w, durations)
        }
        Err(e) => {
            let text = e.to_string();
            let bytes = &text.as_bytes()[..text.len().min(MAX_ERROR_BYTES as usize)];
            w.write_all(&[1])?;
            w.write_all(&(bytes.len() as u32).to_le_bytes())?;
            w.write_all(bytes)
        }
    }
}

/// The outer error is the channel's; the inner one the child's answer.
fn read_reply(r: &mut impl Read) -> io::Result<Result<Reply, VoiceError>> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    match tag[0] {
        0 => {
            let audio = read_floats(r)?;
            let durations = read_floats(r)?;
            Ok(Ok((audio, durations)))
        }
        1 => {
            let mut len = [0u8; 4];
            r.read_exact(&mut len)?;
            let mut text = vec![0u8; bounded(u32::from_le_bytes(len), MAX_ERROR_BYTES)?];
            r.read_exact(&mut text)?;
            Ok(Err(VoiceError::Synthesis(
                String::from_utf8_lossy(&text).into_owned(),
            )))
        }
        t => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("reply tag {t}"),
        )),
    }
}

fn write_floats(w: &mut impl Write, values: &[f32]) -> io::Result<()> {
    let n = u32::try_from(values.len())
        .ok()
        .filter(|n| *n <= MAX_SAMPLES)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "reply too long"))?;
    w.write_all(&n.to_le_bytes())?;
    for v in values {
        w.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

fn read_floats(r: &mut impl Read) -> io::Result<Vec<f32>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let n = bounded(u32::from_le_bytes(len), MAX_SAMPLES)?;
    let mut bytes = vec![0u8; n * 4];
    r.read_exact(&mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn read_f32(r: &mut impl Read) -> io::Result<f32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(f32::from_le_bytes(b))
}

fn bounded(n: u32, max: u32) -> io::Result<usize> {
    if n > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame claims {n} items (at most {max})"),
        ));
    }
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> Request {
        Request {
            ids: vec![1, 0, 42, -3, i64::MAX],
            scales: [0.667, 1.1, 0.8],
        }
    }

    #[test]
    fn requests_and_replies_cross_the_pipe_unchanged() {
        let mut pipe = Vec::new();
        write_request(&mut pipe, &request()).unwrap();
        write_request(&mut pipe, &request()).unwrap();
        let mut answers = Vec::new();
        let mut seen = Vec::new();
        serve(&pipe[..], &mut answers, |r| {
            seen.push(r.clone());
            if seen.len() == 1 {
                Ok((vec![0.5, -1.0, f32::MIN_POSITIVE], vec![2.0, 3.5]))
            } else {
                Err(VoiceError::Synthesis("model said no".into()))
            }
        })
        .unwrap();
        assert_eq!(seen, vec![request(), request()]);
        let mut r = &answers[..];
        assert_eq!(
            read_reply(&mut r).unwrap().unwrap(),
            (vec![0.5, -1.0, f32::MIN_POSITIVE], vec![2.0, 3.5])
        );
        let err = read_reply(&mut r).unwrap().unwrap_err();
        assert!(err.to_string().contains("model said no"), "{err}");
        assert!(r.is_empty());
    }

    #[test]
    fn a_cut_or_oversized_frame_is_an_error_not_a_huge_allocation() {
        let mut pipe = Vec::new();
        write_request(&mut pipe, &request()).unwrap();
        pipe.truncate(pipe.len() - 2);
        assert!(serve(&pipe[..], io::sink(), |_| Ok((vec![], vec![]))).is_err());
        let huge = (MAX_IDS + 1).to_le_bytes();
        assert!(read_request(&mut &huge[..]).is_err());
        let mut reply = vec![0u8];
        reply.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_reply(&mut &reply[..]).is_err());
    }

    #[test]
    fn a_worker_that_is_not_there_is_unavailable() {
        let err = Worker::start(
            Path::new("/nonexistent/reelsmith"),
            Path::new("r"),
            Path::new("m"),
        )
        .err()
        .expect("no such program");
        assert!(matches!(err, VoiceError::Unavailable(_)), "{err}");
    }
}
