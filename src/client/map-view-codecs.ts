// The clients' whole-map views (research note §5.2): MapKeySet, MapValues and MapEntrySet,
// served by the map scan (map/map-scan.ts) over every partition. Their requests carry only the
// map name; their responses are a list of Data (ListMultiFrame) or of Data pairs (EntryList),
// checked against hazelcast-client 5.7.0's lib/codec/Map{KeySet,Values,EntrySet}Codec.js.

import { MessageCursor, type MessageBuilder } from './codec.js';
import type { ClientMessage } from './frame.js';
import { emptyResponse } from './request-codecs.js';

export const MapViewId = {
  MapKeySet: 0x012200,
  MapValues: 0x012400,
  MapEntrySet: 0x012500,
} as const;

export type MapViewRequest = { readonly kind: 'map.keySet' | 'map.values' | 'map.entrySet'; readonly name: string };

/** The view a message asks for; undefined when its type is not one of them. */
export function decodeMapViewRequest(type: number, m: ClientMessage): MapViewRequest | undefined {
  let kind: MapViewRequest['kind'];
  switch (type) {
    case MapViewId.MapKeySet:
      kind = 'map.keySet';
      break;
    case MapViewId.MapValues:
      kind = 'map.values';
      break;
    case MapViewId.MapEntrySet:
      kind = 'map.entrySet';
      break;
    default:
      return undefined;
  }
  return { kind, name: new MessageCursor(m).string('map name') };
}

/** keySet's and values' response: a list of Data. */
export function dataListResponse(requestType: number, correlationId: bigint, items: readonly Buffer[]): MessageBuilder {
  const b = emptyResponse(requestType, correlationId).begin();
  for (const d of items) b.bytes(d);
  return b.end();
}

/** entrySet's response: a list of key and value Data, alternating. */
export function entryListResponse(requestType: number, correlationId: bigint, entries: readonly (readonly [Buffer, Buffer])[]): MessageBuilder {
  const b = emptyResponse(requestType, correlationId).begin();
  for (const [k, v] of entries) b.bytes(k).bytes(v);
  return b.end();
}
