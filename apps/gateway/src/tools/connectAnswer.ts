import { type CallToolResult, type InputRequiredResult, inputRequired } from '@modelcontextprotocol/server';
import { GatewayError } from '../errors/gatewayError.js';

/** How the caller's client may be asked to open a link (docs/credentials.md, "Asking to connect"). */
export type ConnectChannel =
  /** A 2025-era client that declared `elicitation.url`: JSON-RPC -32042 with `data.elicitations`. */
  | 'url_elicitation_error'
  /** A 2026-07-28 client that declared `elicitation.url`: an `input_required` result with a requestState. */
  | 'input_required'
  /** Every other client: a tool error whose text names the provider and the link, for the model to pass on. */
  | 'tool_error';

/** A connection the call needs and the caller lacks: which provider, and the gateway's own link to it. */
export interface ConnectNeed {
  readonly provider: string;
  /** `<public_url>/connect/<flow>`: nothing in it identifies the person. */
  readonly url: string;
  /** The flow's id: the 2025-era elicitationId, and what a 2026-07-28 requestState carries. */
  readonly flowId: string;
  /** When the flow expires (epoch ms): a requestState expires with it. */
  readonly expiresAt: number;
  /** What the person is asked, e.g. "Connect your GitHub account to use skill_gh_call_list_issues". */
  readonly message: string;
}

/** The key of the one embedded request of the input_required answer (and of its response on the retry). */
const CONNECT_INPUT_KEY = 'connect';

/**
 * The answer to a call that needs a connection: thrown as -32042 (2025 era), returned as input_required
 * with `requestState` (2026-07-28), or returned as a tool error with `reason: CONNECT_REQUIRED`. Never a
 * form-mode elicitation: a secret is typed only into the gateway's own page.
 */
export function connectAnswer(
  channel: ConnectChannel,
  need: ConnectNeed,
  requestState?: string,
): CallToolResult | InputRequiredResult {
  switch (channel) {
    case 'url_elicitation_error':
      throw new GatewayError('URL_ELICITATION_REQUIRED', need.message, {
        data: {
          elicitations: [{ mode: 'url', elicitationId: need.flowId, url: need.url, message: need.message }],
        },
      });
    case 'input_required':
      return inputRequired({
        inputRequests: {
          [CONNECT_INPUT_KEY]: inputRequired.elicitUrl({ url: need.url, message: need.message }),
        },
        ...(requestState === undefined ? {} : { requestState }),
      });
    case 'tool_error':
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `CONNECT_REQUIRED: ${need.message}. Ask the person to open ${need.url} and connect their ${need.provider} account, then call the tool again.`,
          },
        ],
        structuredContent: { reason: 'CONNECT_REQUIRED', provider: need.provider, url: need.url },
      };
  }
}
