import CZlib
import Foundation

/// Inflates and deflates raw DEFLATE data (RFC 1951: no zlib header, no checksum), the form
/// Core Data stores its model cache in (`Z_MODELCACHE.Z_CONTENT`, COREDATA-FORMAT.md §5).
///
/// ```swift
/// let archive = try RawDeflate.inflate(blob)
/// let blob = try RawDeflate.deflate(archive)
/// ```
/// Truncated or corrupt input is an error, never a crash; so is output beyond `limit` bytes,
/// which keeps a small malicious blob from inflating into gigabytes.
enum RawDeflate {
    /// Why the data could not be inflated.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The largest output `inflate` produces by default. Model caches are a few kilobytes.
    static let defaultOutputLimit = 64 << 20

    /// The inflated bytes of `input`, which must hold one complete raw DEFLATE stream.
    /// Bytes after the end of the stream are ignored.
    static func inflate(_ input: Data, limit: Int = defaultOutputLimit) throws -> Data {
        guard !input.isEmpty else { throw Failure(reason: "the data is empty") }
        guard input.count <= Int(UInt32.max) else { throw Failure(reason: "the data is too large to inflate") }
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else {
            throw Failure(reason: "zlib could not be initialized")
        }
        defer { inflateEnd(&stream) }

        var inputBytes = [UInt8](input)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var output = Data()
        return try inputBytes.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                var produced = 0
                let status = chunk.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = uInt(outputBuffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced = outputBuffer.count - Int(stream.avail_out)
                    return status
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit {
                    throw Failure(reason: "the data inflates to more than \(limit) bytes")
                }
                switch status {
                case Z_STREAM_END:
                    return output
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    // No progress possible and no input left: the stream stops before its end.
                    throw Failure(reason: "the DEFLATE data is truncated (it ends after \(input.count) bytes, before the end of the stream)")
                case Z_DATA_ERROR:
                    let message = stream.msg.map { String(cString: $0) } ?? "corrupt data"
                    throw Failure(reason: "the data is not valid raw DEFLATE data (zlib: \(message))")
                case Z_MEM_ERROR:
                    throw Failure(reason: "zlib ran out of memory")
                default:
                    let message = stream.msg.map { ": \(String(cString: $0))" } ?? ""
                    throw Failure(reason: "zlib failed with status \(status)\(message)")
                }
            }
        }
    }

    /// `input` compressed as one complete raw DEFLATE stream.
    static func deflate(_ input: Data) throws -> Data {
        guard input.count <= Int(UInt32.max) else { throw Failure(reason: "the data is too large to deflate") }
        var stream = z_stream()
        // zlib's state for a 32 KiB window (about 256 KiB, its hash table cleared) costs more
        // than deflating a model cache of a few KiB, so the window is sized to the input: zlib
        // reaches back at most the window less 262 bytes, so a window of the input's size plus
        // that finds every match a full one would. Raw streams take 9 to 15 bits (zlib refuses
        // 8), and any raw-deflate reader inflates the result.
        let windowBits = min(15, max(9, Int.bitWidth - (input.count + 262).leadingZeroBitCount))
        guard czlib_deflate_init_raw(&stream, Int32(windowBits), Int32(windowBits - 7)) == Z_OK else {
            throw Failure(reason: "zlib could not be initialized")
        }
        defer { deflateEnd(&stream) }

        var inputBytes = [UInt8](input)
        // deflateBound is the most a single Z_FINISH call can produce, so one call suffices.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let produced = try inputBytes.withUnsafeMutableBufferPointer { inputBuffer in
            try output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                let status = CZlib.deflate(&stream, Z_FINISH)
                guard status == Z_STREAM_END else {
                    let message = stream.msg.map { ": \(String(cString: $0))" } ?? ""
                    throw Failure(reason: "zlib failed to deflate with status \(status)\(message)")
                }
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output[0..<produced])
    }
}
