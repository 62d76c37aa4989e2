// One copy of the shared helper, in packages/state.
export * from '../../../state/test/helpers/waitFor.js';
