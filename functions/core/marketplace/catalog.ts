import { notFound } from "../errors.js";
import { MARKETPLACE } from "./catalog.generated.js";

/**
 * The marketplace: ready-made JModel projects (the classic models in examples/jmodel, with their
 * datasets) that `POST /api/v2/projects/from-marketplace/{id}` copies into an organization.
 */
export interface MarketplaceModel {
  id: string;
  title: string;
  summary: string;
  jmodel_source: string;
  datasets: { name: string; data: Record<string, unknown> }[];
}

export function marketplaceModels(): readonly MarketplaceModel[] {
  return MARKETPLACE;
}

export function marketplaceModel(id: string): MarketplaceModel {
  const model = MARKETPLACE.find((m) => m.id === id);
  if (!model) throw notFound("Marketplace model");
  return model;
}
