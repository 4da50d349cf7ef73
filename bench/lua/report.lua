-- Appended to every wrk script by bench/harness.ts: prints one JSON line the harness parses.
-- wrk reports durations and latencies in microseconds; errors.status counts responses outside 2xx/3xx.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"wrk":1,"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
