-- Request generator of bench/run.mjs when wrk is on PATH (see bench/README.md):
--
--   wrk -t1 -c50 -d5s --latency --timeout 10s -s bench/wrk.lua http://127.0.0.1:PORT -- WORKLOAD [KEYS] [PREFIX]
--
-- WORKLOAD get | post: random keys among key-0..key-<KEYS-1> (default 10,000) of map `bench`, a pool of
-- 10,000 pre-formatted requests cycled through (POST with a 100-byte text/plain body); queue: POST
-- <PREFIX>/rest/queues/bench-q (100 bytes) and DELETE <PREFIX>/rest/queues/bench-q/0 alternating. wrk's
-- request() does not know the connection, so the alternation is per wrk thread, not per connection:
-- offers and polls still stay one for one and the queue short. The response hook counts statuses; done()
-- prints one machine-readable line per figure, each starting with "GRIDBENCH ", that run.mjs parses:
-- requests, duration, errors, statuses, wrk's own CPU time (os.clock), latency percentiles and 1,000
-- latency quantiles so that several wrk processes (one per cluster member) can be merged.
local workload = 'get'
local pool = {}
local size = 0
local at = 0
statuses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  workload = args[1] or 'get'
  local keys = tonumber(args[2] or '10000')
  local prefix = args[3] or '/hazelcast'
  local body = string.rep('x', 100)
  local text = { ['Content-Type'] = 'text/plain' }
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1e6))
  if workload == 'queue' then
    pool[1] = wrk.format('POST', prefix .. '/rest/queues/bench-q', text, body)
    pool[2] = wrk.format('DELETE', prefix .. '/rest/queues/bench-q/0')
  elseif workload == 'get' or workload == 'post' then
    for i = 1, 10000 do
      local path = prefix .. '/rest/maps/bench/key-' .. math.random(0, keys - 1)
      if workload == 'post' then
        pool[i] = wrk.format('POST', path, text, body)
      else
        pool[i] = wrk.format('GET', path)
      end
    end
  else
    error('unknown workload ' .. workload)
  end
  size = #pool
end

function request()
  at = at + 1
  if at > size then
    at = 1
  end
  return pool[at]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('GRIDBENCH requests %d\n', summary.requests))
  io.write(string.format('GRIDBENCH duration_us %d\n', summary.duration))
  io.write(string.format('GRIDBENCH errors connect=%d read=%d write=%d status=%d timeout=%d\n',
    e.connect, e.read, e.write, e.status, e.timeout))
  local merged = {}
  for _, thread in ipairs(threads) do
    local s = thread:get('statuses')
    for code, n in pairs(s) do
      merged[code] = (merged[code] or 0) + n
    end
  end
  local parts = {}
  for code, n in pairs(merged) do
    table.insert(parts, code .. '=' .. n)
  end
  io.write('GRIDBENCH statuses ' .. table.concat(parts, ' ') .. '\n')
  io.write(string.format('GRIDBENCH cpu_s %.4f\n', os.clock()))
  io.write(string.format('GRIDBENCH latency_us p50=%d p90=%d p99=%d p999=%d max=%d mean=%.1f\n',
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean))
  -- wrk's latency object has no per-bucket access: 1,000 quantiles (0.05 %, 0.15 %, ... 99.95 %), each
  -- standing for 0.1 % of the requests, let run.mjs merge several wrk processes' distributions.
  local hist = {}
  if summary.requests > 0 then
    for i = 0, 999 do
      table.insert(hist, latency:percentile(i / 10 + 0.05))
    end
  end
  io.write('GRIDBENCH quantiles_us ' .. table.concat(hist, ' ') .. '\n')
end
