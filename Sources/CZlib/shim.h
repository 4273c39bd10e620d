#include <zlib.h>

// inflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)), which Swift cannot import.
// Negative window bits select raw DEFLATE: no zlib header, no checksum (Core Data's Z_MODELCACHE).
static inline int czlib_inflate_init_raw(z_stream *stream) { return inflateInit2(stream, -15); }
// deflateInit2 likewise; level 9 (best compression), raw DEFLATE, with the window (9...15 bits)
// and memory level (1...9) the caller sizes to its input.
static inline int czlib_deflate_init_raw(z_stream *stream, int windowBits, int memLevel) {
    return deflateInit2(stream, Z_BEST_COMPRESSION, Z_DEFLATED, -windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
