// The official Java client (default options except the cluster name and the member addresses)
// as a write load for failover tests: once connected it prints `R`, waits for a line on stdin,
// then 4 threads set unique map keys without pause until stdin closes. Each answer is one stdout line: `A <key>` (acknowledged) or `F <key> <error>` (failed:
// maybe applied, maybe not). Last, `M <uuid>…` lists the members the client sees, then `E`.
// test/client/failover.test.ts drives it through a kill -9.
//
//   java -cp <hazelcast.jar>:<classes> ClientLoad <cluster> <host:port>[,<host:port>…] <map>

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

public final class ClientLoad {
    private static volatile boolean stopped = false;

    public static void main(String[] args) throws Exception {
        ClientConfig config = new ClientConfig();
        config.setClusterName(args[0]);
        for (String address : args[1].split(",")) config.getNetworkConfig().addAddress(address);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        IMap<String, String> map = client.getMap(args[2]);
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        out.println("R");
        // The JVM and the client start ahead of the load: it begins on the test's word.
        int ch;
        while ((ch = System.in.read()) >= 0 && ch != '\n') {
            // discard
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int lane = t;
            Thread thread = new Thread(() -> {
                for (int n = 0; !stopped; n++) {
                    String key = "j" + lane + "-k" + n;
                    String line;
                    try {
                        map.set(key, "v" + n);
                        line = "A " + key;
                    } catch (Exception e) {
                        line = "F " + key + " " + e.getClass().getSimpleName();
                        try {
                            Thread.sleep(20); // no connection fails at once: do not spin
                        } catch (InterruptedException ie) {
                            return;
                        }
                    }
                    synchronized (out) {
                        out.println(line);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        // Until the test closes stdin.
        while (System.in.read() >= 0) {
            // discard
        }
        stopped = true;
        for (Thread thread : threads) thread.join();
        StringBuilder members = new StringBuilder("M");
        for (Member m : client.getCluster().getMembers()) members.append(' ').append(m.getUuid());
        synchronized (out) {
            out.println(members);
            out.println("E");
            out.flush();
        }
        client.shutdown();
    }
}
