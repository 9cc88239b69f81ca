#!/usr/bin/env bash
# Packs a bench or test binary with the GStreamer runtime it needs (libraries and the plugins
# the encoder uses, NVENC's nvcodec included) into DIR, so it runs on a GPU machine that has
# the NVIDIA driver but no GStreamer. Run the result with DIR/run BINARY-NAME [ARGS].
#   scripts/gpu_bundle.sh DIR BINARY...
set -euo pipefail
dir=$1; shift
gst=/usr/lib/x86_64-linux-gnu/gstreamer-1.0
plugins="coreelements app videoconvertscale videotestsrc videoparsersbad audioparsers isomp4
  x264 nvcodec voaacenc audioconvert audioresample typefindfunctions playback"
rm -rf "$dir" && mkdir -p "$dir/lib" "$dir/plugins"
for p in $plugins; do cp -L "$gst/libgst$p.so" "$dir/plugins/"; done
cp -L /usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner "$dir/"
for b in "$@"; do strip -o "$dir/$(basename "$b")" "$b"; done
# Every shared library the binaries, the scanner and the plugins load, but glibc's own.
ldd "$dir"/plugins/*.so "$dir/gst-plugin-scanner" "$@" 2>/dev/null \
  | awk '/=> \//{print $3}' | sort -u \
  | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|libgcc_s)\.so' \
  | while read -r lib; do cp -L "$lib" "$dir/lib/"; done
strip --strip-unneeded "$dir"/lib/*.so* "$dir"/plugins/*.so 2>/dev/null || true
cat > "$dir/run" <<'RUN'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export GST_PLUGIN_SYSTEM_PATH="$here/plugins" GST_PLUGIN_PATH="$here/plugins"
export GST_PLUGIN_SCANNER="$here/gst-plugin-scanner" GST_REGISTRY="${TMPDIR:-/tmp}/reelsmith-gst-registry.bin"
bin=$1; shift
exec "$here/$bin" "$@"
RUN
chmod +x "$dir/run"
du -sh "$dir"
