// Every page of the console, in nav order. A page is one file under pages/ and one line here:
// its id (the URL hash, `#/<id>`), its title, the endpoint groups it needs (a member without
// one of them hides the page from the nav and shows "not allowed" when it is opened anyway).
// A page with a library of its own (charts, editors) is loaded lazily (lazyPage): its code is a
// chunk fetched when the page is first opened.

import type { FunctionComponent } from 'preact';
import type { Session } from '../api.js';
import { ClusterPage } from './cluster.js';
import { lazyPage } from './lazy.js';
import { CpPage } from './cp.js';
import { PersistencePage } from './persistence.js';
import { MapsPage } from './maps.js';
import { QueuesPage } from './queues.js';

export interface PageProps {
  readonly session: Session;
  /** The URL's path after the page id (`#/maps/orders` -> ['orders']). */
  readonly rest: readonly string[];
}

export interface PageDef {
  readonly id: string;
  readonly title: string;
  readonly groups: readonly string[];
  readonly component: FunctionComponent<PageProps>;
}

export const PAGES: readonly PageDef[] = [
  { id: 'cluster', title: 'Cluster', groups: ['CLUSTER_READ'], component: ClusterPage },
  { id: 'maps', title: 'Maps', groups: ['CLUSTER_READ', 'DATA'], component: MapsPage },
  { id: 'queues', title: 'Queues', groups: ['CLUSTER_READ', 'DATA'], component: QueuesPage },
  // Loaded on their first visit, with uPlot: the first paint does not wait for them.
  { id: 'wan', title: 'WAN', groups: ['CLUSTER_READ'], component: lazyPage(() => import('./wan.js').then((m) => m.WanPage)) },
  { id: 'cp', title: 'CP', groups: ['CP'], component: CpPage },
  { id: 'persistence', title: 'Persistence', groups: ['HEALTH_CHECK'], component: PersistencePage },
  { id: 'metrics', title: 'Metrics', groups: ['CLUSTER_READ'], component: lazyPage(() => import('./metrics.js').then((m) => m.MetricsPage)) },
];
