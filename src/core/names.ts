// Readable instance names (`brave_turing`), generated once per member start when the config
// names none.

const ADJECTIVES = [
  'brave', 'calm', 'eager', 'fancy', 'gentle', 'happy', 'jolly', 'keen', 'lucid', 'merry',
  'nimble', 'proud', 'quiet', 'rapid', 'sharp', 'steady', 'swift', 'tender', 'vivid', 'witty',
  'bold', 'clever', 'daring', 'elegant', 'festive', 'graceful', 'hopeful', 'kind', 'loyal', 'modest',
];
const SCIENTISTS = [
  'turing', 'hopper', 'lovelace', 'knuth', 'dijkstra', 'lamport', 'liskov', 'hamilton', 'ritchie',
  'thompson', 'torvalds', 'shannon', 'noether', 'curie', 'euler', 'gauss', 'hoare', 'kay', 'mccarthy',
  'backus', 'wirth', 'allen', 'goldwasser', 'rivest', 'shamir', 'diffie', 'hellman', 'babbage', 'boole', 'cerf',
];

export function generateInstanceName(random: () => number = Math.random): string {
  const a = ADJECTIVES[Math.floor(random() * ADJECTIVES.length)] ?? 'brave';
  const s = SCIENTISTS[Math.floor(random() * SCIENTISTS.length)] ?? 'turing';
  return `${a}_${s}`;
}
