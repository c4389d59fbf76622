// Every page of the console, in nav order. A page is one file under pages/ and one line here:
// its id (the URL hash, `#/<id>`), its title, the endpoint groups it needs (a member without
// one of them hides the page from the nav and shows "not allowed" when it is opened anyway).

import type { FunctionComponent } from 'preact';
import type { Session } from '../api.js';
import { ClusterPage } from './cluster.js';
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
];
