import { z } from 'zod';
import { allowedOriginProblem } from './allowed-origins.js';

/**
 * An agent's `interfaceConfig`: how chat widgets show the agent (the reference service's widget
 * reads the same fields, so a config saved for it works here and the other way round). Checked on
 * create and update so a typo is a 400 naming the field instead of a setting that silently does
 * nothing; values reach browsers, so colours are limited to forms that cannot break out of a CSS
 * declaration.
 */
const COLOUR = /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/a-z]{1,60}\)|[a-z]{3,30})$/i;

const colour = z.string().max(100).regex(COLOUR, { message: 'a hex colour (#1d4ed8), rgb()/hsl(), or a colour name' });
const shortText = z.string().max(500);
const url = z.string().max(2_000);
/**
 * The widget's icon, drawn as an `<img>` only: an http(s) address, or a small inline image (`data:`
 * with an image type). Anything else (`javascript:`, `data:text/html`) is refused.
 */
const IMAGE_URL = /^(https?:\/\/[^\s"'<>]+|data:image\/(png|jpeg|gif|webp|svg\+xml|avif);base64,[a-z0-9+/]+={0,2})$/i;
const MAX_INLINE_ICON_CHARS = 48_000;
const imageUrl = z
  .string()
  .max(MAX_INLINE_ICON_CHARS)
  .refine((value) => IMAGE_URL.test(value) && (value.startsWith('data:') || value.length <= 2_000), {
    message: 'an http(s) URL (at most 2,000 characters) or a base64 data:image/... URL (at most 48,000 characters)',
  });
const allowedOrigin = z
  .string()
  .max(300)
  .superRefine((value, context) => {
    const problem = allowedOriginProblem(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  });

/** Inline styles the reference's widget spreads on its elements; kept for it, not applied by ragdesk's widget. */
const styleObject = z.record(z.string().max(100), z.union([z.string().max(500), z.number()]));

const count = z.union([z.number().min(0), z.string().regex(/^\d{1,12}$/)]);

export const interfaceConfigSchema = z.strictObject({
  displayName: shortText.optional(),
  primaryColor: colour.optional(),
  initialMessage: z.string().max(2_000).optional(),
  initialMessages: z.array(z.string().max(2_000)).max(20).optional(),
  messageTemplates: z.array(z.string().max(500)).max(20).optional(),
  position: z.enum(['left', 'right']).optional(),
  theme: z.enum(['light', 'dark']).optional(),
  isBgTransparent: z.boolean().optional(),
  isInitMessagePopupDisabled: z.boolean().optional(),
  isHumanRequestedDisabled: z.boolean().optional(),
  isMarkAsResolvedDisabled: z.boolean().optional(),
  isLeadCaptureDisabled: z.boolean().optional(),
  isBrandingDisabled: z.boolean().optional(),
  /** Sites the agent's public routes answer from a browser (origins or bare hosts; see allowed-origins.ts). */
  authorizedDomains: z.array(allowedOrigin).max(100).optional(),
  iconUrl: imageUrl.optional(),
  twitterURL: url.optional(),
  instagramURL: url.optional(),
  youtubeURL: url.optional(),
  tiktokURL: url.optional(),
  githubURL: url.optional(),
  websiteURL: url.optional(),
  customCSS: z.string().max(20_000).optional(),
  bubbleButtonStyle: styleObject.optional(),
  bubbleIconStyle: styleObject.optional(),
  iconStyle: styleObject.optional(),
  rateLimit: z
    .strictObject({
      enabled: z.boolean().optional(),
      // The reference's form saves these as typed in, sometimes as digit strings.
      maxQueries: count.optional(),
      interval: count.optional(),
      limitReachedMessage: z.string().max(2_000).optional(),
    })
    .optional(),
});

export type InterfaceConfig = z.output<typeof interfaceConfigSchema>;
