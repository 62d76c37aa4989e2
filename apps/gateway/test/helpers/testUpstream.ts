// One copy of the test upstream and its helpers, in packages/upstreams.
export * from '../../../../packages/upstreams/test/helpers/testUpstream.js';
