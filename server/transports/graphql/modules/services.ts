import { resourceInputSDL, serviceResource, type Service } from '../../../../shared/index.js';
import { createService, listServices, updateService } from '../../../operations/services.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import { withPhotoUrls } from '../file-urls.js';
import type { ServicesSelector, MutationcreateServiceArgs, MutationupdateServiceArgs, QueryinfiniteServicesArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** The spec's visit list. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Visits, newest start first unless sorted otherwise. first at most 100."
    infiniteServices(selector: ServicesSelector, sort: ServiceSort, first: Int!, after: String): ServiceConnection!
  }

  type Mutation {
    "Records a visit (devices usually sync theirs). Technicians may not set office fields."
    createService(input: CreateServiceInput!): Service!
    "Fields not submitted stay as they were; null clears a field."
    updateService(id: ID!, input: UpdateServiceInput!): Service!
  }

  ${resourceInputSDL('CreateServiceInput', serviceResource, { omit: ['photos'] })}

  ${resourceInputSDL('UpdateServiceInput', serviceResource, { omit: ['photos'] })}

  ${connectionSDL('Service')}

  input ServicesSelector {
    filters: ServiceFilter
    "Every word must occur in the visit's reference or notes, or in its customer's name, address or phones."
    search: String
    "Visits listed whatever the filters and search say."
    include: [String]
    "Visits never listed."
    exclude: [String]
  }

  "Whether the visit report went out."
  enum NotificationStatusEnum {
    EMAILED
    TEXTED
    NOT_NOTIFIED
  }

  input ServiceFilter {
    id: IdFilter
    reference: StringFilter
    customerId: StringFilter
    newTechnicianId: StringFilter
    newSecondaryTechnicianId: StringFilter
    appointmentId: StringFilter
    appointmentIdentifierCuid: StringFilter
    appointmentRecurringRuleId: StringFilter
    billingStatus: StringFilter
    flag: StringFilter
    typeId: StringFilter
    vacuum: StringFilter
    waterLevel: StringFilter
    waterCondition: StringFilter
    waterColor: StringFilter
    startTime: DateTimeFilter
    endTime: DateTimeFilter
    returnAppointmentDate: DateTimeFilter
    dateEmailed: DateTimeFilter
    dateTexted: DateTimeFilter
    customerTags: IDFilter
    customerReadyForInvoice: BooleanFilter
    "Any of these notification states."
    notification: [NotificationStatusEnum]
    "Visits where any of these users is the primary or secondary technician."
    technicians: [String]
  }

  enum ServiceSortField {
    START_TIME
    CREATED_AT
    UPDATED_AT
  }

  input ServiceSort {
    field: ServiceSortField!
    direction: SortDirection = DESC
  }
`;

/** GraphQL lists may hold nulls ([String]); they select nothing, so drop them. */
function withoutNulls(selector: ServicesSelector | null | undefined) {
  if (!selector) return selector;
  const clean = (list?: unknown[] | null) => list?.filter((v) => v !== null);
  const filters = selector.filters && { ...selector.filters, notification: clean(selector.filters.notification), technicians: clean(selector.filters.technicians) };
  return { ...selector, include: clean(selector.include), exclude: clean(selector.exclude), ...(filters ? { filters } : {}) };
}

export const resolvers: Resolvers = {
  Query: {
    infiniteServices: (_: unknown, args: QueryinfiniteServicesArgs, ctx: GraphQLContext) =>
      listServices(ctx, { ...args, selector: withoutNulls(args.selector) }),
  },
  Mutation: {
    createService: (_: unknown, { input }: MutationcreateServiceArgs, ctx: GraphQLContext) => createService(ctx, input),
    updateService: (_: unknown, { id, input }: MutationupdateServiceArgs, ctx: GraphQLContext) => updateService(ctx, id, input),
  },
  Service: {
    photos: (s: Service, _: unknown, ctx: GraphQLContext) => withPhotoUrls(ctx, 'services', s.id, s.photos),
    customer: (s: Service, _: unknown, ctx: GraphQLContext) => (s.customerId ? ctx.loaders.customer.load(s.customerId) : null),
    type: (s: Service, _: unknown, ctx: GraphQLContext) => (s.typeId ? ctx.loaders.serviceType.load(s.typeId) : null),
  },
};
