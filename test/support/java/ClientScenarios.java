// The official Java client (com.hazelcast:hazelcast, unchanged, default options except the
// cluster name and the member addresses) running one scenario of map and queue operations per
// target, in one JVM for all targets of a test file (the JVM's start is paid once). Each step
// prints one JSON line on stdout: {"target":…,"step":…,"value":…} or {…,"error":"<class>: <msg>"};
// test/client/java-client.test.ts holds what each step must answer (Hazelcast's own answers).
// The client's log goes to stderr (java.util.logging's console handler).
//
//   java -cp <hazelcast.jar>:<classes> ClientScenarios <target>=<cluster>@<host:port>[,<host:port>…] …
//
// A new operation is one more step() line here and one more row in the test's table.

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.connection.ClientConnectionManager;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.collection.IQueue;
import com.hazelcast.core.EntryView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

public final class ClientScenarios {
    private static String target = "";

    public static void main(String[] args) throws Exception {
        int failures = 0;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            int at = arg.indexOf('@');
            target = arg.substring(0, eq);
            ClientConfig config = new ClientConfig();
            config.setClusterName(arg.substring(eq + 1, at));
            for (String address : arg.substring(at + 1).split(",")) config.getNetworkConfig().addAddress(address);
            HazelcastInstance client;
            try {
                client = HazelcastClient.newHazelcastClient(config);
            } catch (Exception e) {
                emit("connect", null, e);
                failures++;
                continue;
            }
            try {
                // The members view comes in an event after the connection (on Hazelcast too):
                // newHazelcastClient may return before it.
                step("connect", () -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (client.getCluster().getMembers().isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
                    return client.getCluster().getMembers().size();
                });
                step("connections", () -> connections(client));
                map(client);
                values(client);
                manyKeys(client);
                queue(client);
                mapOps(client);
                keys(client);
                queueOps(client);
                cp(client);
            } finally {
                client.shutdown();
            }
            emit("done", true, null);
        }
        System.out.flush();
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * A smart client opens its connections to the other members in the background: wait (at
     * most 30 s) until it has one per member, so the steps after this reach every member.
     */
    private static int connections(HazelcastInstance client) throws InterruptedException {
        ClientConnectionManager connections = ((HazelcastClientProxy) client).client.getConnectionManager();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (connections.getActiveConnections().size() < client.getCluster().getMembers().size() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return connections.getActiveConnections().size();
    }

    private static void map(HazelcastInstance client) {
        IMap<String, String> m = client.getMap("jm1");
        step("map.put k1 v1", () -> m.put("k1", "v1"));
        step("map.get k1", () -> m.get("k1"));
        step("map.put k1 v2", () -> m.put("k1", "v2"));
        step("map.set k2", () -> { m.set("k2", "h\u00e9llo \u2603"); return null; });
        step("map.get k2", () -> m.get("k2"));
        step("map.containsKey k1", () -> m.containsKey("k1"));
        step("map.containsKey nope", () -> m.containsKey("nope"));
        step("map.get nope", () -> m.get("nope"));
        step("map.size 2", m::size);
        step("map.isEmpty 2", m::isEmpty);
        step("map.remove k1", () -> m.remove("k1"));
        step("map.remove k1 again", () -> m.remove("k1"));
        step("map.delete k2", () -> { m.delete("k2"); return null; });
        step("map.size 0", m::size);
        step("map.set a", () -> { m.set("a", "1"); return null; });
        step("map.set b", () -> { m.set("b", "2"); return null; });
        step("map.clear", () -> { m.clear(); return null; });
        step("map.size after clear", m::size);
        step("map.isEmpty after clear", m::isEmpty);
        // Left for the test to read over REST: a string, as Hazelcast serves it (text/plain).
        step("map.set rest-s", () -> { m.set("rest-s", "from-java"); return null; });
    }

    /** Java types other than String: kept byte-exact for binary readers. */
    private static void values(HazelcastInstance client) {
        IMap<String, Object> m = client.getMap("jm2");
        step("map.set bytes", () -> { m.set("bytes", new byte[] {0, 1, 2, (byte) 255}); return null; });
        step("map.get bytes", () -> m.get("bytes"));
        step("map.set int", () -> { m.set("int", 42); return null; });
        step("map.get int", () -> m.get("int"));
        step("map.set long", () -> { m.set("long", -7L); return null; });
        step("map.get long", () -> m.get("long"));
        step("map.set bool", () -> { m.set("bool", Boolean.TRUE); return null; });
        step("map.get bool", () -> m.get("bool"));
        step("map.put int over bytes", () -> m.put("bytes", 7));
    }

    /** Enough keys that a smart client sends them to every member of a cluster. */
    private static void manyKeys(HazelcastInstance client) {
        IMap<String, String> m = client.getMap("jm3");
        step("map.set 200 keys", () -> {
            for (int i = 0; i < 200; i++) m.set("k" + i, "v" + i);
            return null;
        });
        step("map.get 200 keys: wrong", () -> {
            int wrong = 0;
            for (int i = 0; i < 200; i++) if (!("v" + i).equals(m.get("k" + i))) wrong++;
            return wrong;
        });
        step("map.size 200", m::size);
    }

    private static void queue(HazelcastInstance client) {
        IQueue<String> q = client.getQueue("jq1");
        step("queue.offer a", () -> q.offer("a"));
        step("queue.offer b", () -> q.offer("b"));
        step("queue.size 2", q::size);
        step("queue.peek", q::peek);
        step("queue.poll a", q::poll);
        step("queue.poll b", q::poll);
        step("queue.poll empty", q::poll);
        step("queue.peek empty", q::peek);
        step("queue.isEmpty", q::isEmpty);
        step("queue.poll 100 ms empty", () -> q.poll(100, TimeUnit.MILLISECONDS));
        // A poll that waits at the member, answered by an offer from another thread.
        step("queue.poll waits for an offer", () -> {
            CompletableFuture<Boolean> offered = CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return q.offer("late");
            });
            String got = q.poll(20, TimeUnit.SECONDS);
            return got + "/" + offered.get(20, TimeUnit.SECONDS);
        });
        step("queue.size 0", q::size);
        // Left for the test to poll over REST.
        step("queue.offer rest-item", () -> q.offer("to-rest"));
    }

    /** The conditional, bulk and TTL operations of a map, and its entry view. */
    private static void mapOps(HazelcastInstance client) {
        IMap<String, String> m = client.getMap("jm4");
        step("map.put a", () -> m.put("a", "v1"));
        step("map.putIfAbsent present", () -> m.putIfAbsent("a", "x"));
        step("map.putIfAbsent absent", () -> m.putIfAbsent("b", "x"));
        step("map.replace absent", () -> m.replace("none", "y"));
        step("map.containsKey none", () -> m.containsKey("none"));
        step("map.replace b", () -> m.replace("b", "y"));
        step("map.replaceIfSame wrong", () -> m.replace("b", "x", "z"));
        step("map.replaceIfSame right", () -> m.replace("b", "y", "z"));
        step("map.removeIfSame absent", () -> m.remove("none", "x"));
        step("map.removeIfSame right", () -> m.remove("b", "z"));
        step("map.putTransient", () -> { m.putTransient("tr", "v", 60, TimeUnit.SECONDS); return null; });
        step("map.tryPut", () -> m.tryPut("tp", "v", 100, TimeUnit.MILLISECONDS));
        step("map.tryRemove", () -> m.tryRemove("tp", 100, TimeUnit.MILLISECONDS));
        step("map.tryRemove again", () -> m.tryRemove("tp", 100, TimeUnit.MILLISECONDS));
        step("map.putAll", () -> {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 20; i++) all.put("p" + i, "v" + i);
            m.putAll(all);
            return null;
        });
        step("map.getAll", () -> new TreeMap<>(m.getAll(new HashSet<>(Arrays.asList("p1", "p19", "absent")))).toString());
        step("map.setTtl missing", () -> m.setTtl("missing", 5, TimeUnit.SECONDS));
        step("map.size 22", m::size);
        // The entry view without times (they differ per run): version, ttl, maxIdle, the
        // statistics a map without per-entry stats reads as -1, and whether it has a cost.
        step("map.entryView new", () -> view(m.getEntryView("a")));
        step("map.entryView updated", () -> { m.put("a", "v2"); return view(m.getEntryView("a")); });
        step("map.entryView setTtl", () -> { m.setTtl("a", 60, TimeUnit.SECONDS); return view(m.getEntryView("a")); });
        step("map.entryView setTtl 0", () -> { m.setTtl("a", 0, TimeUnit.SECONDS); return view(m.getEntryView("a")); });
        step("map.entryView ttl 0", () -> { m.set("t0", "v", 0, TimeUnit.SECONDS); return view(m.getEntryView("t0")); });
        step("map.entryView ttl and max-idle", () -> { m.set("ti", "v", 60, TimeUnit.SECONDS, 30, TimeUnit.SECONDS); return view(m.getEntryView("ti")); });
        step("map.entryView missing", () -> m.getEntryView("missing"));
    }

    /** Keys of types other than String: each its own entry, compared by its serialized form. */
    private static void keys(HazelcastInstance client) {
        IMap<Object, String> m = client.getMap("jm5");
        step("keys.put long 7", () -> m.put(7L, "long"));
        step("keys.put int 7", () -> m.put(7, "int"));
        step("keys.put string 7", () -> m.put("7", "string"));
        step("keys.put bytes", () -> m.put(new byte[] {0, 7}, "bytes"));
        step("keys.put list", () -> m.put(new ArrayList<>(Arrays.asList("a", 7L)), "list"));
        step("keys.size 5", m::size);
        step("keys.get long 7", () -> m.get(7L));
        step("keys.get int 7", () -> m.get(7));
        step("keys.get bytes copy", () -> m.get(new byte[] {0, 7}));
        step("keys.get list copy", () -> m.get(new ArrayList<>(Arrays.asList("a", 7L))));
        step("keys.containsKey long 8", () -> m.containsKey(8L));
        step("keys.keySet", () -> {
            List<String> out = new ArrayList<>();
            for (Object k : m.keySet()) out.add(describe(k));
            out.sort(null);
            return out.toString();
        });
        step("keys.putIfAbsent int", () -> m.putIfAbsent(7, "x"));
        step("keys.replace long", () -> m.replace(7L, "long2"));
        step("keys.replaceIfSame bytes", () -> m.replace(new byte[] {0, 7}, "bytes", "bytes2"));
        step("keys.removeIfSame list wrong", () -> m.remove(new ArrayList<>(Arrays.asList("a", 7L)), "nope"));
        step("keys.remove list", () -> m.remove(new ArrayList<>(Arrays.asList("a", 7L))));
        step("keys.getAll", () -> {
            Map<Object, String> all = m.getAll(new HashSet<>(Arrays.asList(7L, 7, 9L)));
            List<String> out = new ArrayList<>();
            for (Map.Entry<Object, String> e : all.entrySet()) out.add(describe(e.getKey()) + "=" + e.getValue());
            out.sort(null);
            return out.toString();
        });
        // Left for the test to read over REST: only the String key "7" has a path.
        step("keys.size 4", m::size);
    }

    private static String describe(Object k) {
        if (k instanceof byte[]) {
            StringBuilder b = new StringBuilder("bytes:");
            for (byte x : (byte[]) k) b.append(String.format("%02x", x & 0xff));
            return b.toString();
        }
        return k.getClass().getSimpleName() + ":" + k;
    }

    private static String view(EntryView<String, String> v) {
        long now = System.currentTimeMillis();
        long expiry = v.getExpirationTime();
        String expires = expiry == Long.MAX_VALUE ? "never" : expiry > now ? "later" : "past";
        return "value=" + v.getValue() + " version=" + v.getVersion() + " ttl=" + v.getTtl() + " maxIdle=" + v.getMaxIdle()
            + " expires=" + expires + " creation=" + v.getCreationTime() + " hits=" + v.getHits() + " access=" + v.getLastAccessTime()
            + " stored=" + v.getLastStoredTime() + " updated=" + (v.getLastUpdateTime() > 0 ? "yes" : String.valueOf(v.getLastUpdateTime()))
            + " cost=" + (v.getCost() > 0 ? "positive" : String.valueOf(v.getCost()));
    }

    private static void queueOps(HazelcastInstance client) {
        IQueue<String> q = client.getQueue("jq2");
        step("queue.remainingCapacity empty", q::remainingCapacity);
        step("queue.put a", () -> { q.put("a"); return null; });
        step("queue.addAll", () -> q.addAll(Arrays.asList("b", "c", "d", "c")));
        step("queue.remainingCapacity 5", q::remainingCapacity);
        step("queue.contains d", () -> q.contains("d"));
        step("queue.containsAll", () -> q.containsAll(Arrays.asList("c", "zz")));
        step("queue.remove c", () -> q.remove("c"));
        step("queue.remove zz", () -> q.remove("zz"));
        step("queue.toArray", () -> Arrays.toString(q.toArray()));
        step("queue.drainTo 2", () -> {
            List<String> to = new ArrayList<>(Arrays.asList("pre"));
            return q.drainTo(to, 2) + " " + to;
        });
        step("queue.drainTo all", () -> {
            List<String> to = new ArrayList<>();
            return q.drainTo(to) + " " + to;
        });
        step("queue.offer 100 ms", () -> q.offer("x", 100, TimeUnit.MILLISECONDS));
        step("queue.take", q::take);
        step("queue.clear", () -> { q.addAll(Arrays.asList("1", "2")); q.clear(); return q.size(); });
    }

    /** Without a CP subsystem (Hazelcast open source has none; the Grid members here none on): refused. */
    private static void cp(HazelcastInstance client) {
        step("cp.atomicLong without CP", () -> {
            try {
                return client.getCPSubsystem().getAtomicLong("jal").get();
            } catch (UnsupportedOperationException e) {
                return e.getClass().getName();
            }
        });
    }

    private static void step(String name, Callable<Object> op) {
        try {
            emit(name, op.call(), null);
        } catch (Throwable e) {
            emit(name, null, e);
        }
    }

    private static void emit(String step, Object value, Throwable error) {
        StringBuilder b = new StringBuilder("{\"target\":");
        quote(b, target);
        b.append(",\"step\":");
        quote(b, step);
        if (error != null) {
            b.append(",\"error\":");
            quote(b, error.getClass().getName() + ": " + error.getMessage());
        } else {
            b.append(",\"value\":");
            json(b, value);
        }
        System.out.println(b.append('}'));
        System.out.flush();
    }

    /** Values as JSON, their Java type kept where JSON would lose it. */
    private static void json(StringBuilder b, Object v) {
        if (v == null) b.append("null");
        else if (v instanceof String) quote(b, (String) v);
        else if (v instanceof Boolean) b.append(v);
        else if (v instanceof Integer) b.append(v);
        else if (v instanceof Long) b.append("{\"long\":").append(v).append('}');
        else if (v instanceof byte[]) {
            b.append("{\"bytes\":\"");
            for (byte x : (byte[]) v) b.append(String.format("%02x", x & 0xff));
            b.append("\"}");
        } else {
            b.append("{\"class\":");
            quote(b, v.getClass().getName());
            b.append(",\"text\":");
            quote(b, String.valueOf(v));
            b.append('}');
        }
    }

    private static void quote(StringBuilder b, String s) {
        b.append('"');
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') b.append('\\').append(ch);
            else if (ch < 0x20 || ch > 0x7e) b.append(String.format("\\u%04x", (int) ch));
            else b.append(ch);
        }
        b.append('"');
    }
}
