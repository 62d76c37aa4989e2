// One condition-polling helper for every package's tests: the state package owns it.
export * from '../../../../packages/state/test/helpers/waitFor.js';
