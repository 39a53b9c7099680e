import { z } from 'zod';

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
  authorizedDomains: z.array(z.string().max(300)).max(100).optional(),
  iconUrl: url.optional(),
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
