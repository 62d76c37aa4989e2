// One copy of the hostile upstream and its helpers, in packages/upstreams.
export * from '../../../../packages/upstreams/test/helpers/hostileUpstream.js';
